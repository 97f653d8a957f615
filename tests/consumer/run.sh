#!/usr/bin/env bash
# ctest find_package_consumer: installs the build in BUILD_DIR to a temporary prefix, then configures, builds and
# runs tests/consumer against it with find_package(reluopt).
set -euo pipefail
build_dir=$1
source_dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > /dev/null
cmake -S "$source_dir" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" > /dev/null
cmake --build "$work/build" -j 2 > /dev/null
"$work/build/consumer"
