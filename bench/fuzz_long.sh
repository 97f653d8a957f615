#!/usr/bin/env bash
# Longer libFuzzer runs of every reader than CI's: bench/fuzz_long.sh [SECONDS_PER_TARGET] (default 600).
# The targets run one after the other; each one's corpus grows in build-fuzz/corpus/ from run to run, and
# anything found lands in build-fuzz/artifacts/ (docs/FUZZING.md says what to do with it).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
make build-fuzz
nice -n 10 fuzz/run.sh build-fuzz "$seconds" fuzz_onnx fuzz_nnet fuzz_domain_json fuzz_objective_json
