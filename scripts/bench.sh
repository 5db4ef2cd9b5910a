#!/usr/bin/env bash
# Benchmarks: build with optimisation and print the simulator throughput
# table (ops per second on one core). Usage: scripts/bench.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target bench_sim >/dev/null
echo "simulator throughput, one core (target >= 20 Mops/s):"
taskset -c 0 ./build-bench/bench_sim --seconds "${1:-1}" 2>/dev/null || ./build-bench/bench_sim --seconds "${1:-1}"
