#!/usr/bin/env bash
# Runs libFuzzer targets for a given time each, as many at a time as there are cores: fuzz/run.sh BUILD_DIR SECONDS TARGET...
# Each target starts from its seed corpus (fuzz/corpus/TARGET, read only) plus what earlier runs in
# BUILD_DIR found (BUILD_DIR/corpus/TARGET); crashing inputs go to BUILD_DIR/artifacts/. Prints one summary
# line per target and exits 1 if any target found something.
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir=$1
seconds=$2
shift 2

dict_of() {
  case $1 in
    fuzz_onnx) echo fuzz/onnx.dict ;;
    fuzz_nnet) echo fuzz/nnet.dict ;;
    fuzz_vnnlib) echo fuzz/vnnlib.dict ;;
    *) echo fuzz/json.dict ;;
  esac
}

# One target's run; its summary line (and a finding's first lines) go to BUILD_DIR/fuzz-TARGET.summary.
fuzz_target() {
  local target=$1
  local corpus="$build_dir/corpus/$target"
  local artifacts="$build_dir/artifacts"
  local log="$build_dir/fuzz-$target.log"
  mkdir -p "$corpus" "$artifacts"
  # -timeout: an input taking 10 s is a finding (the readers are linear in their input); -rss_limit_mb: the
  # readers refuse tensors above 64 MB (fuzz/fuzz_reader.h), so 2 GB of memory is a leak or a missing check.
  "$build_dir/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$(dict_of "$target")" -artifact_prefix="$artifacts/$target-" -print_final_stats=1 \
    "$corpus" "fuzz/corpus/$target" > "$log" 2>&1
  local rc=$?
  local runs cover
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cover=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  if [ $rc -eq 0 ]; then
    echo "$target: ${runs:-?} runs in ${seconds} s, ${cover:-cov: ?}, no findings"
  else
    echo "$target: FINDING (exit $rc) after ${runs:-?} runs; log $log, inputs in $artifacts:"
    grep -E 'ERROR|SUMMARY|runtime error|error message|Test unit written' "$log" | head -n 5
  fi > "$build_dir/fuzz-$target.summary"
  return $rc
}

# The targets run as many at a time as there are cores, each for its full time.
jobs=$(nproc)
status=0
targets=("$@")
for ((first = 0; first < ${#targets[@]}; first += jobs)); do
  pids=()
  batch=("${targets[@]:first:jobs}")
  for target in "${batch[@]}"; do
    fuzz_target "$target" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "$build_dir/fuzz-${batch[$i]}.summary"
  done
done
exit $status
