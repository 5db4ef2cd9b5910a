#!/usr/bin/env python3
"""One instance of the exact-solver grid (bench/solve.sh, bench/search.sh).

usage: grid_instance.py P M fused|split unlimited|2p|p COMM uniform|uneven|F,B,W

Costs (F, B, W) = (1, 1, 1) uniform, (5, 6, 4) uneven, or the triple given
(the name then ends in FBW, e.g. -342); fused backward
merges B and W. Memory: F +2, B -1, W -1 (fused: B -2), limit 2 x the
activations allowed (2p or p of them). Prints the instance JSON.
"""
import json
import sys

p, m, bw, mem, comm, costs = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4],
                              int(sys.argv[5]), sys.argv[6])
if costs == "uniform":
    c = {"F": 1, "B": 1, "W": 1}
elif costs == "uneven":
    c = {"F": 5, "B": 6, "W": 4}
else:
    try:
        f, b, w = (int(v) for v in costs.split(","))
    except ValueError:
        sys.exit(f"grid_instance.py: costs '{costs}': expected uniform, uneven or F,B,W")
    c = {"F": f, "B": b, "W": w}
    costs = f"{f}{b}{w}"

d = {"F": 2, "B": -1, "W": -1}
if bw == "fused":
    c = {"F": c["F"], "B": c["B"] + c["W"]}
    d = {"F": 2, "B": -2}
inst = {"name": f"p{p}-m{m}-{bw}-{mem}-c{comm}-{costs}", "devices": p, "microbatches": m,
        "cost": c, "comm": comm}
if mem != "unlimited":
    acts = 2 * p if mem == "2p" else p
    inst["memory"] = dict(d, limit=2 * acts)
print(json.dumps(inst))
