"""The library's option table and method table (src/core/option_table.cc) against everything said to come from
them: the flags of `reluopt solve --help`, reluopt.option_names(), the type stubs, and the tables of docs/CLI.md
and docs/PYTHON.md (`reluopt options --markdown`).

`.venv/bin/python tests/python/test_option_table.py --write` copies the generated tables into the docs."""
import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("RELUOPT_CLI", str(ROOT / "build" / "reluopt"))
DOCS = {"docs/PYTHON.md": ["options", "methods"], "docs/CLI.md": ["options", "methods", "run flags"]}
BLOCK = re.compile(r"<!-- reluopt options --markdown: (.+?) -->\n.*?<!-- end -->\n", re.S)
# Options that reluopt.solve takes as named arguments before its keyword-only options.
NAMED = {"method", "threads", "seed"}
STUB_TYPES = {"integer": "int", "real": "float", "bool": "bool", "choice": "str",
              "real pair": "Optional[tuple[float, float]]"}


def run_cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=True, timeout=60).stdout


def generated_blocks():
    return {m.group(1): m.group(0) for m in BLOCK.finditer(run_cli("options", "--markdown"))}


def help_flags(section):
    """The flags listed in a section of `reluopt solve --help` (up to the next blank line)."""
    text = run_cli("solve", "--help")
    body = text[text.index(section):].split("\n\n")[0]
    return [m.group(1) for m in re.finditer(r"^  (--[a-z-]+)", body, re.M)]


def solve_stub_arguments():
    tree = ast.parse((ROOT / "python" / "reluopt" / "__init__.pyi").read_text())
    solve = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "solve")
    named = {a.arg: ast.unparse(a.annotation) for a in solve.args.args}
    keywords = {a.arg: ast.unparse(a.annotation) for a in solve.args.kwonlyargs}
    return named, keywords


def test_help_lists_the_options_python_takes():
    import reluopt

    flags = help_flags("Options of solve")
    assert len(flags) == len(set(flags))
    assert sorted(flags) == sorted("--" + name.replace("_", "-") for name in reluopt.option_names())
    run_flags = help_flags("Run options of solve")
    assert "--time-limit" in run_flags and not set(run_flags) & set(flags)


def test_option_table_is_the_option_names():
    import reluopt

    table = reluopt.option_table()
    assert sorted(row["name"] for row in table) == reluopt.option_names()
    for row in table:
        assert row["flag"] == "--" + row["name"].replace("_", "-")
        assert row["type"] in STUB_TYPES
        assert set(row["methods"]) <= set(reluopt.method_names())
    # The options that once were the command line's alone.
    for name in ("ascent_steps", "perturbations", "perturbation_radius", "walk_iterations", "bab_memory"):
        assert name in reluopt.option_names()


def test_method_names_are_every_method():
    import reluopt

    assert reluopt.method_names() == ["sampling", "mip", "mip-cuts", "partition", "enhanced", "bab", "gradient",
                                      "walk"]
    methods = generated_blocks()["methods"]
    assert re.findall(r"^\| `([a-z-]+)` \|", methods, re.M) == reluopt.method_names()


def test_stub_declares_every_option_with_its_type():
    import reluopt

    named, keywords = solve_stub_arguments()
    table = {row["name"]: row for row in reluopt.option_table()}
    assert set(keywords) == set(table) - NAMED
    assert NAMED <= set(named)
    for name, row in table.items():
        annotation = keywords.get(name) or named[name]
        assert STUB_TYPES[row["type"]] in annotation, (name, annotation)


def test_core_stub_declares_every_function():
    from reluopt import _core

    tree = ast.parse((ROOT / "python" / "reluopt" / "_core.pyi").read_text())
    declared = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    public = {name for name in dir(_core) if not name.startswith("_")}
    assert declared == public


def test_docs_tables_are_the_generated_ones():
    blocks = generated_blocks()
    assert set(blocks) == {"options", "methods", "run flags"}
    for doc, names in DOCS.items():
        found = {m.group(1): m.group(0) for m in BLOCK.finditer((ROOT / doc).read_text())}
        assert sorted(found) == sorted(names), doc
        for name in names:
            assert found[name] == blocks[name], (
                f"{doc}: the {name} table differs from `reluopt options --markdown` "
                "(.venv/bin/python tests/python/test_option_table.py --write)")


def test_warm_start_takes_a_name_or_a_bool(net):
    import reluopt

    box = {"lower": [0.0] * 4, "upper": [1.0] * 4, "method": "mip", "threads": 1, "warm_start_samples": 20}
    for value, started in (("sampling", True), (True, True), ("none", False), (False, False)):
        assert reluopt.solve(net, **box, warm_start=value).formulation["warm_start"] is started, value
    with pytest.raises(reluopt.Error, match="unknown warm start 'oracle'"):
        reluopt.solve(net, **box, warm_start="oracle")


def write_docs():
    blocks = generated_blocks()
    for doc in DOCS:
        path = ROOT / doc
        path.write_text(BLOCK.sub(lambda m: blocks[m.group(1)], path.read_text()))


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write_docs()
