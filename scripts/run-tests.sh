#!/usr/bin/env bash
# Builds and runs every test: the Release build's test suites, then the same suites built with
# AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
# Label "long" (the native rerun of the intrinsic suite, ~10 minutes): ctest --test-dir build -L long
ctest --test-dir build --output-on-failure -j2 -LE long

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTPC_SANITIZE=ON -DTPC_BUILD_BENCH=OFF
cmake --build build-asan -j2
# The accuracy suites (label "accuracy") and the second, native run of the intrinsic suite (label "long") run
# in the Release build only; under the sanitizers the compiler, simulator and native path they drive are
# covered by every other suite (docs/decisions.md).
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-asan --output-on-failure -j2 -LE "accuracy|long"
