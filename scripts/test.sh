#!/usr/bin/env bash
# The whole test suite: check the layering of the includes, install the
# packages, build, run every cmocka and end-to-end test; then build again
# with AddressSanitizer and UndefinedBehaviorSanitizer and run the suite
# once more, where any report fails the run; last, fuzz every reader with
# libFuzzer for FUZZ_SECONDS each (default 30; 0 skips; scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== layers (scripts/layers.sh)"
scripts/layers.sh

scripts/deps.sh
jobs=$(nproc)

echo "== build and test (RelWithDebInfo)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs" >/dev/null
(cd build && ctest --output-on-failure -j"$jobs")

echo "== build and test with -fsanitize=address,undefined"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPIPEOPT_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
(cd build-asan && ctest --output-on-failure -j"$jobs")

fuzz_seconds=${FUZZ_SECONDS:-30}
if ((fuzz_seconds > 0)); then
	echo "== fuzz the readers, $fuzz_seconds s each (scripts/fuzz.sh)"
	scripts/fuzz.sh "$fuzz_seconds"
fi
