#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install the packages, build
# pipeopt, and run the main job on the bundled instance (the families
# compared against the lower bound, then 1F1B's result and timeline).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target pipeopt >/dev/null
echo
./build/pipeopt families datasets/instances/zb-1p-example.json
echo
./build/pipeopt simulate datasets/instances/zb-1p-example.json --family 1f1b
