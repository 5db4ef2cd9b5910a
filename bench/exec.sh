#!/usr/bin/env bash
# The executor on a 2-stage CPU pipeline (2 devices, 8 micro-batches, split
# backward): gpipe, 1f1b, zb-h1, zb-auto and the exact solver's optimal
# schedule (solved with the op costs measured here), each run on real
# tensors with one worker thread per device. Prints gradient error, peak
# live activations (measured / predicted), measured and predicted makespan
# and their ratio, and whether the measured ranking equals the predicted.
#
# usage: bench/exec.sh [-H HIDDEN] [-R ROWS] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
hidden=512 rows=256
while getopts "H:R:" opt; do
  case $opt in H) hidden=$OPTARG ;; R) rows=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '{"name":"two-stage","devices":2,"microbatches":8,"cost":{"F":1,"B":1,"W":1}}' > "$tmp/i.json"
# op costs measured here, then the optimal schedule for them
"$bin" exec "$tmp/i.json" --family 1f1b --hidden "$hidden" --rows "$rows" --json > "$tmp/cal.json"
python3 - "$tmp/cal.json" "$tmp/t.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["op_seconds"]
us = {k: max(1, round(v * 1e6)) for k, v in c.items()}
json.dump({"name": "two-stage-timed", "devices": 2, "microbatches": 8, "cost": us}, open(sys.argv[2], "w"))
PY
"$bin" solve "$tmp/t.json" --time-limit 60 -o "$tmp/opt.json" > /dev/null
printf '| schedule | grad rel err | peak live (measured / predicted) | measured s | predicted s | ratio |\n|---|---|---|---|---|---|\n'
for s in gpipe 1f1b zb-h1 zb-auto optimal; do
  if [ "$s" = optimal ]; then arg=(--schedule "$tmp/opt.json"); else arg=(--family "$s"); fi
  "$bin" exec "$tmp/i.json" "${arg[@]}" --hidden "$hidden" --rows "$rows" --json > "$tmp/$s.json"
  python3 - "$tmp/$s.json" "$s" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f'| {sys.argv[2]} | {j["grad_max_rel_err"]:.2g} | {j["peak_live_activations"]} / {j["predicted_peak"]} '
      f'| {j["measured_makespan_s"]:.4f} | {j["predicted_makespan_s"]:.4f} | {j["ratio"]:.3f} |')
PY
done
python3 - "$tmp" <<'PY'
import json, sys
names = ["gpipe", "1f1b", "zb-h1", "zb-auto", "optimal"]
r = {n: json.load(open(f"{sys.argv[1]}/{n}.json")) for n in names}
m = sorted(names, key=lambda n: r[n]["measured_makespan_s"])
p = sorted(names, key=lambda n: r[n]["predicted_makespan_s"])
print(f"\nmeasured ranking:  {' < '.join(m)}\npredicted ranking: {' < '.join(p)}\nequal: {m == p}")
PY
