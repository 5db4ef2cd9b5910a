#!/usr/bin/env bash
# The GPU check, as one prepared script for a machine with a GPU (the
# workplace's `device` tool runs it in a copy of the tree; results go to
# $OUT). Builds, then profiles CANDLE-Uno's operators with the CUDA source
# and, for contrast, the CPU source, and runs the executor on a 2-stage
# pipeline. Without a GPU the CUDA step fails in one line and the rest runs.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/pipeopt-device}
mkdir -p "$out"
cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release > "$out/cmake.log" 2>&1
cmake --build build-device -j"$(nproc)" >> "$out/cmake.log" 2>&1 || { tail -20 "$out/cmake.log"; exit 1; }
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
bin=build-device/pipeopt
g=datasets/graphs/candle-uno-a100.json
"$bin" profile "$g" --device cuda --sizes 1,4,16,64 -o "$out/candle-cuda.json" 2>&1 | tee "$out/profile-cuda.txt"
"$bin" profile "$g" --device cpu --sizes 1,4 -o "$out/candle-cpu.json" > "$out/profile-cpu.txt" 2>&1
[ -f "$out/candle-cuda.json" ] && "$bin" partition "$g" --devices 8 --costs "$out/candle-cuda.json" > "$out/partition-cuda.txt" 2>&1
bench/exec.sh "$bin" > "$out/exec.md" 2>&1
cat "$out"/profile-cuda.txt "$out/exec.md" 2>/dev/null | head -60
