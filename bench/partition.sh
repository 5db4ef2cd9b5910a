#!/usr/bin/env bash
# The partitioner: (1) search time for MMT, DLRM and CANDLE-Uno (A100
# analytic costs, datasets/graphs) at 4, 8, 16, 32 devices, graph vs
# sequential pipeline, and the predicted speedup (sequential iteration
# time / graph iteration time, both the DP's estimate); (2) DP vs the exact
# MILP on small chains and series-parallel graphs (fixed seed), one
# micro-batch size: equal on chains, DP >= MILP on SP graphs (the gap is the
# cost of restricting stages to SP segments).
#
# usage: bench/partition.sh [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/pipeopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| graph | devices | graph: s | seq: s | graph TPS (us) | seq TPS (us) | graph iteration (us) | seq iteration (us) | speedup | depth graph/seq | micro-batch graph/seq |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for g in mmt dlrm candle-uno; do for D in 4 8 16 32; do
  "$bin" partition "datasets/graphs/$g-a100.json" --devices "$D" --json > "$tmp/g.json"
  "$bin" partition "datasets/graphs/$g-a100.json" --devices "$D" --sequential --json > "$tmp/s.json"
  python3 - "$tmp/g.json" "$tmp/s.json" "$g" "$D" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
print(f'| {sys.argv[3]} | {sys.argv[4]} | {a["seconds"]:.3f} | {b["seconds"]:.3f} | {a["time_per_sample"]:.2f} | {b["time_per_sample"]:.2f} '
      f'| {a["iteration_time"]:.0f} | {b["iteration_time"]:.0f} | {b["iteration_time"] / a["iteration_time"]:.2f}x '
      f'| {a["depth"]}/{b["depth"]} | {a["microbatch_size"]}/{b["microbatch_size"]} |')
PY
done; done
echo
printf '| small graph | ops | devices | DP bottleneck (us) | MILP bottleneck (us) | gap | MILP certified | MILP s |\n'
printf '|---|---|---|---|---|---|---|---|\n'
python3 - "$tmp" <<'PY'
import json, random, sys
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
        ops = [{"name": f"n{v}", "fwd": [f, 1.7 * f], "bwd": [b, 1.8 * b], "act_bytes": 100.0 * rng.randint(1, 5),
                "weight_bytes": 1000.0 * rng.randint(1, 5), "out_bytes": 10.0 * rng.randint(1, 5)}
               for v in range(n) for f, b in [(rng.randint(1, 20), rng.randint(1, 20))]]
        g = {"name": f"{name}-s{seed}", "batch": 16, "microbatch_sizes": [2, 4],
             "machine": {"devices": 4, "memory_bytes": 1e9, "link_latency_us": 1, "link_bandwidth": 100},
             "ops": ops, "edges": [[f"n{a}", f"n{b}"] for a, b in edges]}
        json.dump(g, open(f"{out}/{name}-s{seed}.graph.json", "w"))
PY
for f in "$tmp"/*.graph.json; do for D in 2 3 4; do
  "$bin" partition "$f" --devices "$D" --microbatch-sizes 4 --json > "$tmp/dp.json"
  "$bin" partition "$f" --devices "$D" --microbatch-sizes 4 --method ilp --json > "$tmp/ilp.json"
  python3 - "$tmp/dp.json" "$tmp/ilp.json" "$D" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ops = sum(len(s) for s in a["stages"])
gap = (a["bottleneck_us"] - b["bottleneck_us"]) / b["bottleneck_us"]
print(f'| {a["graph"]} | {ops} | {sys.argv[3]} | {a["bottleneck_us"]:.2f} | {b["bottleneck_us"]:.2f} | {100 * gap:.2f} % | {b["certified"]} | {b["milp"]["solver_seconds"]:.2f} |')
PY
done; done
