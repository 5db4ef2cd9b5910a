#!/usr/bin/env bash
# The partitioners (issue 15): (1) MMT, DLRM and CANDLE-Uno (analytic
# A100, H200 and V100 costs, datasets/graphs) at GraphPipe's device counts
# 4, 8, 16, 32: the default search, the sequential pipeline and GraphPipe's
# DP, each reported by its simulated 1f1b-dag iteration (the number plan
# and exec see), the speedup over the sequential pipeline, the search time,
# and a check that the reported number equals `simulate --family 1f1b-dag`
# of the written instance (-o); (2) small chains and series-parallel graphs
# (fixed seed, one micro-batch size): the search against the MILP (which
# proves the bottleneck optimum of its model) and the DP, all by simulated
# iteration.
#
# usage: bench/partition.sh [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/pipeopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| graph | devices | search (us) | sequential (us) | GraphPipe DP (us) | speedup over sequential | DP speedup | search s | stages / depth / micro-batch | reported = simulated |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for g in mmt dlrm candle-uno; do for m in a100 h200 v100; do for D in 4 8 16 32; do
  f="datasets/graphs/$g-$m.json"
  "$bin" partition "$f" --devices "$D" --json -o "$tmp/g.inst.json" > "$tmp/g.json"
  "$bin" partition "$f" --devices "$D" --sequential --json > "$tmp/s.json"
  "$bin" partition "$f" --devices "$D" --method dp --json > "$tmp/d.json"
  "$bin" simulate "$tmp/g.inst.json" --family 1f1b-dag --json --no-timeline > "$tmp/sim.json"
  python3 - "$tmp" "$g-$m" "$D" <<'PY'
import json, sys
t = sys.argv[1]
a, b, d, sim = (json.load(open(f"{t}/{x}.json")) for x in ("g", "s", "d", "sim"))
ok = abs(sim["makespan"] - a["iteration_time"]) <= 0.01 * a["iteration_time"]
print(f'| {sys.argv[2]} | {sys.argv[3]} | {a["iteration_time"]:.0f} | {b["iteration_time"]:.0f} | {d["iteration_time"]:.0f} '
      f'| {b["iteration_time"] / a["iteration_time"]:.2f}x | {b["iteration_time"] / d["iteration_time"]:.2f}x | {a["seconds"]:.2f} '
      f'| {len(a["stages"])} / {a["depth"]} / {a["microbatch_size"]} | {"yes" if ok else "NO"} ({sim["makespan"]}) |')
PY
done; done; done
echo
printf '| small graph | ops | devices | search (us) | MILP plan (us) | DP (us) | search vs MILP | DP vs MILP | MILP certified | MILP s |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
python3 - "$tmp" <<'PY'
import json, random, sys
sys.path.insert(0, "bench")
from small_graphs import random_graph
out = sys.argv[1]
rng = random.Random(20261129)
shapes = {
    "chain6": (6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
    "chain8": (8, [(i, i + 1) for i in range(7)]),
    "fork-join6": (6, [(0, 1), (1, 2), (0, 3), (3, 4), (2, 5), (4, 5)]),
    "three-branch8": (8, [(0, 1), (1, 2), (0, 3), (3, 4), (0, 5), (5, 6), (2, 7), (4, 7), (6, 7)]),
    "two-diamonds7": (7, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (3, 5), (4, 6), (5, 6)]),
}
for name, (n, edges) in shapes.items():
    for seed in (1, 2):
        g = random_graph(f"{name}-s{seed}", n, edges, rng, devices=4)
        json.dump(g, open(f"{out}/{name}-s{seed}.graph.json", "w"))
PY
for f in "$tmp"/*.graph.json; do for D in 2 3 4; do
  "$bin" partition "$f" --devices "$D" --microbatch-sizes 4 --json > "$tmp/se.json"
  "$bin" partition "$f" --devices "$D" --microbatch-sizes 4 --method dp --json > "$tmp/dp.json"
  "$bin" partition "$f" --devices "$D" --microbatch-sizes 4 --method ilp --json > "$tmp/ilp.json"
  python3 - "$tmp/se.json" "$tmp/dp.json" "$tmp/ilp.json" "$D" <<'PY'
import json, sys
s, a, b = (json.load(open(x)) for x in sys.argv[1:4])
ops = sum(len(x) for x in a["stages"])
r = lambda x: 100 * (x["iteration_time"] - b["iteration_time"]) / b["iteration_time"]
print(f'| {a["graph"]} | {ops} | {sys.argv[4]} | {s["iteration_time"]:.0f} | {b["iteration_time"]:.0f} | {a["iteration_time"]:.0f} '
      f'| {r(s):+.2f} % | {r(a):+.2f} % | {b["certified"]} | {b["milp"]["solver_seconds"]:.2f} |')
PY
done; done
