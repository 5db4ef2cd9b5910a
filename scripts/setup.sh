#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install the packages, build
# pipeopt, and run the main job on the bundled instance: every family
# compared against the lower bound, then the best one's result and timeline
# (zb-auto, whose makespan meets the bound: certified optimal); then the
# genetic algorithm on a small instance where every family misses the
# optimum; then a sweep (the GA against certified optima and the families
# on 24 small instances) with its summary and plots.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target pipeopt >/dev/null
echo
./build/pipeopt families datasets/instances/zb-1p-example.json
echo
./build/pipeopt simulate datasets/instances/zb-1p-example.json --family zb-auto
echo
# The genetic algorithm where Zero Bubble's heuristic misses the optimum:
# p = 4, m = 8, unit costs, comm 1, memory of p activations (every family
# and zb-auto give 41; the proven optimum is 39).
./build/pipeopt search datasets/ga/zb-small/zb-small-p4-m8-unit-comm1-1p.json --time-limit 10
echo
# A sweep: 168 tasks (families, CBC, the GA) on all cores, results appended
# to build/ga-quality.jsonl (rerun to resume), plots in build/ga-quality-plots.
./build/pipeopt sweep datasets/sweeps/ga-quality.json -o build/ga-quality.jsonl
./build/pipeopt plot build/ga-quality.jsonl
