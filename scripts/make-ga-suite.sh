#!/usr/bin/env bash
# Build the GA validation suite: small instances with optima certified by
# the exact solver, stored as datasets/ga/suite/NAME.json (the instance) and
# NAME.cert.json (the `pipeopt solve --json` result: schedule, objective,
# bound, certificate). Candidates are drawn from a fixed seed and varied on
# purpose (devices, micro-batches, per-stage costs, memory, comm,
# placements, DAGs, split or fused backward, makespan or span); only
# certified ones are kept, preferring those where no predefined family is
# optimal (the cases that test a search).
#
# usage: scripts/make-ga-suite.sh [-n KEEP] [-c CANDIDATES] [-t SECONDS] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
keep=60 candidates=160 limit=60
while getopts "n:c:t:" opt; do
  case $opt in n) keep=$OPTARG ;; c) candidates=$OPTARG ;; t) limit=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$candidates" "$work" <<'PY'
import json, random, sys
n, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(20261129)
for i in range(n):
    kind = rng.choice(["chain"] * 5 + ["interleaved", "v", "dag"])
    split = rng.random() < 0.7
    D = rng.choice([2, 3, 3, 4, 4]) if kind == "chain" else 2 if kind != "dag" else 3
    M = rng.choice([3, 4, 4, 5, 6]) if kind == "chain" else rng.choice([3, 4])
    inst = {"name": f"suite-{i:03d}-{kind}", "devices": D, "microbatches": M}
    if kind == "chain":
        L = D
    elif kind in ("interleaved", "v"):
        inst["chunks"], inst["placement"], L = 2, kind, 2 * D
    else:
        inst["placement"] = [0, 1, 2, 0]
        inst["edges"] = rng.choice([[[0, 1], [0, 2], [1, 3], [2, 3]], [[0, 1], [1, 2], [0, 3], [2, 3]]])
        L = 4
    uneven = rng.random() < 0.6
    def costs(lo, hi):
        return [rng.randint(lo, hi) for _ in range(L)] if uneven else rng.randint(lo, hi)
    cost = {"F": costs(1, 6), "B": costs(1, 8)}
    if split:
        cost["W"] = costs(1, 5)
    inst["cost"] = cost
    inst["comm"] = rng.choice([0, 0, 1, 2, 3])
    mem = rng.choice(["none", "none", "tight", "loose"])
    if mem != "none":
        d = {"F": 2, "B": -1, "W": -1} if split else {"F": 2, "B": -2}
        per_dev = L // D
        acts = D if mem == "tight" else 2 * D
        d["limit"] = max(2 * per_dev, 2 * acts // 2 if mem == "tight" else 2 * acts)
        inst["memory"] = d
    if rng.random() < 0.25:
        inst["objective"] = "span"
    with open(f"{out}/{inst['name']}.json", "w") as f:
        json.dump(inst, f)
PY

for f in "$work"/suite-*.json; do
  name=$(basename "$f" .json)
  if "$bin" solve "$f" --time-limit "$limit" --json > "$work/$name.cert.json" 2>/dev/null; then
    echo "$name $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["certified"], j["objective"], j["heuristic"]["objective"])' "$work/$name.cert.json")"
  else
    echo "$name error"
  fi
done > "$work/results.txt"

python3 - "$work" "$keep" <<'PY'
import json, os, shutil, sys
work, keep = sys.argv[1], int(sys.argv[2])
rows = [l.split() for l in open(f"{work}/results.txt")]
ok = [r for r in rows if len(r) == 4 and r[1] == "True"]
hard = [r for r in ok if int(r[3]) > int(r[2])]
easy = [r for r in ok if int(r[3]) == int(r[2])]
chosen = sorted(hard[:keep] + easy[:max(0, keep - len(hard))])
dest = "datasets/ga/suite"
shutil.rmtree(dest, ignore_errors=True)
os.makedirs(dest)
for name, *_ in chosen:
    for ext in (".json", ".cert.json"):
        shutil.copy(f"{work}/{name}{ext}", f"{dest}/{name}{ext}")
print(f"{len(rows)} candidates, {len(ok)} certified ({len(hard)} where no family is optimal); kept {len(chosen)}")
PY
