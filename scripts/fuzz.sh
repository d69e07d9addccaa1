#!/usr/bin/env bash
# The sanitizer build (clang 19, -fsanitize=address,undefined, in build-fuzz/) of the Qt- and Torch-free
# libraries -- core, compiler, text -- with their unit tests and the libFuzzer target of every parser of
# untrusted input (tests/fuzz); runs them all: `ctest -L fuzz` runs each target QGPU_FUZZ_SECONDS (default
# 12). Extra arguments go to ctest (e.g. -L fuzz). -O1, as the sanitizers' documentation advises: the build
# takes about a fifth less time than at -O2, and the reports keep their lines.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DQGPU_FUZZ=ON -DQGPU_SANITIZE=address,undefined \
  -DQGPU_FUZZ_SECONDS="${QGPU_FUZZ_SECONDS:-12}" >/dev/null
cmake --build "$root/build-fuzz" -j"$(nproc)"
cd "$root/build-fuzz"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp
exec ctest --output-on-failure -j"$(nproc)" "$@"
