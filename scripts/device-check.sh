#!/usr/bin/env bash
# The GPU check, as one prepared script for a machine with a GPU (the
# workplace's `device` tool runs it in a copy of the tree; results go to
# $OUT). Builds, then profiles CANDLE-Uno's and MMT's operators with the
# CUDA source and, for contrast, the CPU source, runs the executor on the
# GPU (--device cuda: 1f1b, zb-h1, gpipe on 4 stages of 2 transformer
# layers each, datasets/instances/exec-transformer-4.json; gradients
# against the CPU reference) and the CPU executor bench. Without a GPU the CUDA steps fail
# in one line each and the rest runs.
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
"$bin" profile datasets/graphs/mmt-a100.json --device cuda --sizes 1,4 -o "$out/mmt-cuda.json" > "$out/profile-mmt-cuda.txt" 2>&1
for f in 1f1b zb-h1 gpipe; do
  "$bin" exec datasets/instances/exec-transformer-4.json --family "$f" --device cuda --hidden 1024 --rows 256 --json > "$out/exec-cuda-$f.json" 2>&1
  echo "cuda $f: $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print({k: j.get(k) for k in ('grad_max_rel_err','peaks_equal','measured_makespan_s','predicted_makespan_s','ratio','error')})" "$out/exec-cuda-$f.json" 2>&1)" | tee -a "$out/exec-cuda.txt"
done
bench/exec.sh -M 4 -n 9 "$bin" > "$out/exec.md" 2>&1
cat "$out"/profile-cuda.txt "$out/exec-cuda.txt" "$out/exec.md" 2>/dev/null | head -80
