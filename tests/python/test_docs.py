"""Every citation of a document in the code, the README and docs/ points at a file in docs/ that exists, and
every cited section of MATH.md (§N, "section N") and of SOLVER-NOTES.md ("Title") is there."""
import re

from conftest import ROOT

SOURCES = ["src", "include", "app", "python", "tests", "bench", "examples", "fuzz", "docs", "scripts"]
SUFFIXES = {".cc", ".h", ".py", ".md", ".txt", ".sh"}
# Any upper-case document name (MATH.md, CLI.md, ...) is a citation of docs/; README.md is the folder's own, and
# FILE.md and PREFIX.md are a command's metavariables.
CITATION = re.compile(r"\b(?<![/\w-])((?!(?:README|FILE|PREFIX)\b)[A-Z][A-Z0-9-]*)\.md(?:,? (?:§|section )(\d+)|, \"([^\"]+)\")?")


def files():
    yield ROOT / "README.md"
    yield ROOT / "Makefile"
    for top in SOURCES:
        for path in (ROOT / top).rglob("*"):
            # A hidden folder is not the project's: bench/.venv-peers holds the peers' packages and their docs.
            inside = path.relative_to(ROOT).parts
            if any(part.startswith(".") for part in inside) or "fixtures" in inside:
                continue
            if path.suffix in SUFFIXES and path.is_file():
                yield path


def headings(name):
    return [line for line in (ROOT / "docs" / f"{name}.md").read_text().splitlines() if line.startswith("#")]


def test_citations_point_at_existing_docs():
    checked, missing = 0, []
    for path in files():
        for match in CITATION.finditer(path.read_text(errors="replace")):
            name, section, title = match.groups()
            where = f"{path.relative_to(ROOT)}: {match.group(0)}"
            checked += 1
            if not (ROOT / "docs" / f"{name}.md").exists():
                missing.append(where)
            elif section and not any(re.match(rf"#+ {section}\.", h) for h in headings(name)):
                missing.append(where)
            elif title and not any(title.lower() in h.lower() for h in headings(name)):
                missing.append(where)
    assert checked > 40
    assert not missing, missing
