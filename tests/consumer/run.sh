#!/usr/bin/env bash
# ctest find_package_consumer: installs the build in BUILD_DIR to a temporary prefix, then configures, builds and
# runs tests/consumer against it with find_package(reluopt).
set -euo pipefail
build_dir=$1
source_dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > /dev/null
# A sanitizer build's static library calls the sanitizer runtimes: its consumer is compiled and linked with the
# same -fsanitize= list, as any program linking that library must be.
sanitize=$(sed -n 's/^RELUOPT_SANITIZE:STRING=//p' "$build_dir/CMakeCache.txt")
flags=()
if [ -n "$sanitize" ]; then
  flags=(-DCMAKE_CXX_FLAGS="-fsanitize=$sanitize" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitize")
fi
cmake -S "$source_dir" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  "${flags[@]}" > /dev/null
cmake --build "$work/build" -j 2 > /dev/null
"$work/build/consumer"
