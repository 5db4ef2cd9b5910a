#!/usr/bin/env bash
# The exact partitioner (issue 15 item 2): `partition --method ilp` on small
# fork-joins, chains and diamonds (9 and 12 operators, fixed seeds), the
# whole command timed, at D devices (default 4), with its own time limit.
# Columns: seconds for the whole command, simulated iteration, certified
# bottleneck, and the MILP's counts (solves, cutoffs from the warm start,
# sizes pruned by the lower bound).
#
# usage: bench/partition_ilp.sh [PIPEOPT] [DEVICES] [LIMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/pipeopt}
D=${2:-4}
lim=${3:-60}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import json, random, sys
sys.path.insert(0, "bench")
from small_graphs import random_graph
out = sys.argv[1]
chain = lambda n: [(i, i + 1) for i in range(n - 1)]
fj3_9 = [(0,1),(1,2),(0,3),(3,4),(0,5),(5,6),(2,7),(4,7),(6,7),(7,8)]
fj3_12 = [(0,1),(1,2),(2,3),(0,4),(4,5),(5,6),(0,7),(7,8),(8,9),(3,10),(6,10),(9,10),(10,11)]
fj4_12 = [(0,1),(1,2),(0,3),(3,4),(0,5),(5,6),(0,7),(7,8),(2,9),(4,9),(6,9),(8,9),(9,10),(10,11)]
# set A: sizes 2 and 4, loose memory
rng = random.Random(20261129)
shapes = {"fj3-9": (9, fj3_9), "chain12": (12, chain(12)), "fj3-12": (12, fj3_12),
          "diamonds12": (12, [(0,1),(0,2),(1,3),(2,3),(3,4),(3,5),(4,6),(5,6),(6,7),(6,8),(7,9),(8,9),(9,10),(10,11)]),
          "fj2-12": (12, [(0,1),(1,2),(2,3),(3,4),(0,5),(5,6),(6,7),(7,8),(4,9),(8,9),(9,10),(10,11)])}
for name, (n, edges) in shapes.items():
    for seed in (1, 2):
        g = random_graph(f"{name}-s{seed}", n, edges, rng)
        json.dump(g, open(f"{out}/a-{name}-s{seed}.graph.json", "w"))
# set B: sizes 1, 2, 4, 8; loose memory and 45 kB per device
rng = random.Random(7)
for name, (n, edges) in {"fj3-9": (9, fj3_9), "fj3-12": (12, fj3_12), "fj4-12": (12, fj4_12)}.items():
    for seed in (1, 2, 3):
        for mem in ("loose", "tight"):
            g = random_graph(f"{name}-s{seed}-{mem}", n, edges, rng, batch=32, sizes=(1, 2, 4, 8),
                             fwd=(0.6, 1, 1.7, 3.2), bwd=(0.6, 1, 1.8, 3.3),
                             memory_bytes=1e9 if mem == "loose" else 45000)
            json.dump(g, open(f"{out}/b-{name}-s{seed}-{mem}.graph.json", "w"))
PY
printf '| graph | sizes | devices | command s | iteration (us) | bottleneck (us) | certified | solves / cutoffs / pruned |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for f in "$tmp"/*.graph.json; do
  s=$(date +%s.%N)
  "$bin" partition "$f" --devices "$D" --method ilp --json --time-limit "$lim" > "$tmp/out.json" 2>/dev/null || true
  e=$(date +%s.%N)
  python3 - "$tmp/out.json" "$f" "$D" "$s" "$e" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); g = json.load(open(sys.argv[2]))
sec = float(sys.argv[5]) - float(sys.argv[4])
sizes = ",".join(map(str, g["microbatch_sizes"]))
if j.get("status") == "error":
    print(f'| {g["name"]} | {sizes} | {sys.argv[3]} | {sec:.2f} | - | - | {j["error"].split(": ", 1)[1]} | - |')
else:
    m = j["milp"]
    print(f'| {g["name"]} | {sizes} | {sys.argv[3]} | {sec:.2f} | {j["iteration_time"]:.0f} | {j["bottleneck_us"]:.1f} '
          f'| {j["certified"]} | {m["solves"]} / {m["cutoffs"]} / {m["sizes_pruned"]} |')
PY
done
