#!/usr/bin/env bash
# VNN-COMP: install_tool.sh v1 — builds reluopt (Release) in the repository's build/ directory; the Makefile
# installs the Debian packages it needs (docs/VERIFY.md, vnncomp/README.md).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/vnncomp/common.sh"
check_arguments "install_tool.sh v1" 1 "$@"
make -C "$repo" build
test -x "$repo/build/reluopt"
"$repo/build/reluopt" --version
