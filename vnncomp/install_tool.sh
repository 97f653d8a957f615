#!/usr/bin/env bash
# VNN-COMP: install_tool.sh v1 — builds reluopt (Release) in the repository's build/ directory; the Makefile
# installs the Debian packages it needs (docs/VERIFY.md, vnncomp/README.md).
set -euo pipefail
if [ "${1:-}" != "v1" ]; then
  echo "Expected first argument (version string) 'v1', got '${1:-}'" >&2
  exit 1
fi
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
make -C "$repo" build
test -x "$repo/build/reluopt"
"$repo/build/reluopt" --version
