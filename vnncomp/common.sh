# Sourced by the VNN-COMP scripts: check_arguments USAGE MIN_COUNT "$@" exits 1 unless the first argument is
# the interface version "v1" and at least MIN_COUNT arguments are given.
# The binary the scripts run: RELUOPT_BINARY when set (the tests give the binary of their own build directory),
# else the one install_tool.sh builds.
reluopt_binary="${RELUOPT_BINARY:-$repo/build/reluopt}"
check_arguments() {
  local usage=$1 count=$2
  shift 2
  if [ "${1:-}" != "v1" ]; then
    echo "Expected first argument (version string) 'v1', got '${1:-}'" >&2
    exit 1
  fi
  if [ $# -lt "$count" ]; then
    echo "usage: $usage" >&2
    exit 1
  fi
}
