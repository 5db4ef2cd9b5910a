#!/usr/bin/env bash
# Benchmarks: build with optimisation and print the simulator and GA
# decoder throughput tables (one core). Usage: scripts/bench.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target bench_sim bench_ga >/dev/null
echo "simulator throughput, one core (target >= 20 Mops/s):"
taskset -c 0 ./build-bench/bench_sim --seconds "${1:-1}" 2>/dev/null || ./build-bench/bench_sim --seconds "${1:-1}"
echo
echo "GA decoder throughput, one core (seed genome, and children: crossover + 3 mutations):"
taskset -c 0 ./build-bench/bench_ga --seconds "${1:-1}" 2>/dev/null || ./build-bench/bench_ga --seconds "${1:-1}"
