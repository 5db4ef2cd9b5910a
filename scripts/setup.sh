#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install the packages, build
# pipeopt, and run the main job on the bundled instance: every family
# compared against the lower bound, then the best one's result and timeline
# (zb-auto, whose makespan meets the bound: certified optimal).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target pipeopt >/dev/null
echo
./build/pipeopt families datasets/instances/zb-1p-example.json
echo
./build/pipeopt simulate datasets/instances/zb-1p-example.json --family zb-auto
