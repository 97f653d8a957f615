#!/usr/bin/env bash
# VNN-COMP: run_instance.sh v1 CATEGORY ONNX VNNLIB RESULTS TIMEOUT — runs reluopt verify and writes RESULTS:
# sat with the counterexample ((X_0 v) ... (Y_0 v) ...), unsat, unknown or timeout. Gzipped files (ONNX.gz,
# VNNLIB.gz, or the names without .gz that only exist gzipped) are unpacked to a temporary directory first.
# A file reluopt cannot read gives the result "error" and exit code 1.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/vnncomp/common.sh"
check_arguments "run_instance.sh v1 CATEGORY ONNX VNNLIB RESULTS [TIMEOUT]" 5 "$@"
category=$2
onnx=$3
vnnlib=$4
results=$5
timeout=${6:-60}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Echoes a readable path for $1, unpacking it into $work when it is gzipped.
unpacked() {
  local file=$1 name
  if [ ! -f "$file" ] && [ -f "$file.gz" ]; then file="$file.gz"; fi
  case "$file" in
    *.gz)
      name="$work/$(basename "${file%.gz}")"
      gzip -dc "$file" > "$name" || return 1
      echo "$name" ;;
    *) echo "$file" ;;
  esac
}

onnx_file=$(unpacked "$onnx") && vnnlib_file=$(unpacked "$vnnlib") || { echo error > "$results"; exit 1; }
# Leave a second for reading the files and writing the result: the harness counts the whole script.
limit=$(awk -v t="$timeout" 'BEGIN { l = t - 1; if (l < 0.5 * t) l = 0.5 * t; print l }')
echo "reluopt verify, category '$category': $onnx_file $vnnlib_file, time limit $limit s"
"$reluopt_binary" verify "$onnx_file" "$vnnlib_file" --time-limit "$limit" --result-file "$results"
status=$?
if [ $status -ne 0 ]; then
  echo error > "$results"
  exit 1
fi
exit 0
