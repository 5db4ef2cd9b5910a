#!/usr/bin/env bash
# The exact solver on F&B overlap instances past what its search proves in a
# second or two (issue 17 item 1: the MILPs model the pairs). N random
# instances (seeded): chains of 4 or 6 devices (m 6-10), V and interleaved
# placements of 3 or 4 devices (m 4-6), per stage costs 1-5, split or fused
# backward, comm 0-2, overlap factor 0 or 0.5, a memory limit on half of
# them (from two activations per chunk up to m). Per instance: `pipeopt
# solve` within the limit, its verdict, objective, bound and who certified
# it (bound, search, solver), one instance per core (-j).
#
# usage: bench/overlap-exact.sh [-t SECONDS] [-n N] [-s SEED] [-j JOBS] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=30 n=12 seed=11 jobs=2
while getopts "t:n:s:j:" opt; do
  case $opt in t) limit=$OPTARG ;; n) n=$OPTARG ;; s) seed=$OPTARG ;; j) jobs=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=$(realpath "${1:-build/pipeopt}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$seed" "$n" "$dir" <<'PY'
import json, random, sys
rng = random.Random(int(sys.argv[1]))
for i in range(int(sys.argv[2])):
    place = rng.choice(["chain", "chain", "v", "interleaved"])
    p = rng.choice([4, 6]) if place == "chain" else rng.choice([3, 4])
    m = rng.randint(6, 10) if place == "chain" else rng.randint(4, 6)
    chunks = 1 if place == "chain" else 2
    stages = p * chunks
    split = rng.random() < 0.5
    costs = lambda: [rng.randint(1, 5) for _ in range(stages)]
    d = {"name": f"ov{i:02d}-{place}-p{p}-m{m}", "devices": p, "microbatches": m,
         "comm": rng.randint(0, 2)}
    if chunks == 2:
        d["chunks"], d["placement"] = 2, place
    d["cost"] = {"F": costs(), "B": costs()}
    if split:
        d["cost"]["W"] = costs()
    d["overlap"] = {"factor": rng.choice([0, 0.5])}
    if rng.random() < 0.5:
        d["memory"] = {"F": 2, "B": -1, "W": -1} if split else {"F": 2, "B": -2}
        d["memory"]["limit"] = 2 * rng.randint(chunks * 2, m * chunks)
    with open(f"{sys.argv[3]}/{d['name']}.json", "w") as f:
        json.dump(d, f)
PY
export bin limit
ls "$dir"/*.json | xargs -P "$jobs" -I{} sh -c '"$bin" solve {} --time-limit "$limit" --json > {}.out 2>/dev/null || true'
printf '| instance | ops | backward | overlap | memory | status | objective | bound | gap | certified by | seconds |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for f in "$dir"/*.json; do
  python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
try:
    r = json.load(open(sys.argv[1] + ".out"))
except ValueError:
    print(f"| {d['name']} | error |"); sys.exit()
kinds = 3 if "W" in d["cost"] else 2
ops = kinds * d["devices"] * d.get("chunks", 1) * d["microbatches"]
mem = f"limit {d['memory']['limit']}" if "memory" in d else "-"
gap = 100 * (r["objective"] - r["bound"]) / r["objective"]
print(f"| {d['name']} | {ops} | {'split' if kinds == 3 else 'fused'} | {d['overlap']['factor']} | {mem} | "
      f"{r['status']} | {r['objective']} | {r['bound']} | {gap:.2f} % | {r.get('certified_by') or '-'} | "
      f"{r['seconds']:.1f} |")
PY
done
