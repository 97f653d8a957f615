"""Prints the requirements pyproject.toml pins for the build and for the given extras, one per line, for
`pip install` in the Makefile's .venv (the package itself is installed without its dependencies)."""
import sys
import tomllib

with open(sys.argv[1], "rb") as f:
    project = tomllib.load(f)
print("\n".join(project["build-system"]["requires"]))
for extra in sys.argv[2:]:
    print("\n".join(project["project"]["optional-dependencies"][extra]))
