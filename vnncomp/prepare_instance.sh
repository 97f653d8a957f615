#!/usr/bin/env bash
# VNN-COMP: prepare_instance.sh v1 CATEGORY ONNX VNNLIB — checks that the files exist and that reluopt is built.
# reluopt reads both files at run time and does no analysis here; a non-zero exit skips the instance.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/vnncomp/common.sh"
check_arguments "prepare_instance.sh v1 CATEGORY ONNX VNNLIB" 4 "$@"
for file in "$3" "$4"; do
  if [ ! -f "$file" ] && [ ! -f "$file.gz" ]; then
    echo "prepare_instance.sh: no file '$file'" >&2
    exit 1
  fi
done
if [ ! -x "$reluopt_binary" ]; then
  echo "prepare_instance.sh: reluopt is not built (run vnncomp/install_tool.sh v1)" >&2
  exit 1
fi
exit 0
