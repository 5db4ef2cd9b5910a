#!/usr/bin/env bash
# Random instances against every family (issue 17: "the GA and the exact
# solver beat every family where the families leave bubbles, or prove the
# family optimal"), beyond the fixed cost sets of bench/vfamilies-*.sh.
#
# Each instance: a placement drawn from chain (one stage per device), V
# (2 chunks), interleaved (2 chunks) and waves (V with 4 chunks, Hanayo's
# two waves); p devices (3-8; 4 or 6 for waves), m in [p, 4p]; per chunk F
# in [2, 40], B = F x [0.7, 1.5], W = F x [0.3, 1.0] (rounded down, at
# least 1), comm in {0, 1, 1, 2, 5}; memory F +2, B -1, W -1, the limit
# the simulated peak of one feasible family drawn at random, so that the
# rows run at every family's own memory. With -v, V only at v-min's peak,
# p in {8, 10, 12}, m in [2p, 3p], F in [2, 12], and B = F on half the
# rows (the class where v-min stays unbeaten, bench/results/beat-families.md).
#
# Per row: the best family valid at that limit (pipeopt families), the
# command's makespan in T seconds (one core), `pipeopt bound` (or the
# command's own bound when larger), and the verdict:
#   beaten   below the best family
#   optimal  equal to the best family and to a bound: the family is optimal
#   tie      equal to the best family, above every bound: open
#   worse    above the best family (a defect: the families are seeds)
# The counts follow the table. A fixed seed gives the same instances.
#
# usage: bench/beat-families.sh [-n INSTANCES] [-r SEED] [-t SECONDS]
#                               [-s search|solve] [-c CORE] [-v] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
n=40 seed=1 limit=5 cmd=search core=0 vmode=0
while getopts "n:r:t:s:c:v" opt; do
  case $opt in
    n) n=$OPTARG ;; r) seed=$OPTARG ;; t) limit=$OPTARG ;; s) cmd=$OPTARG ;; c) core=$OPTARG ;; v) vmode=1 ;;
    *) exit 2 ;;
  esac
done
case $cmd in search | solve) ;; *) echo "bench/beat-families.sh: -s $cmd: expected search or solve" >&2; exit 2 ;; esac
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
. bench/lib.sh
bench_tmpdir
python3 - "$bin" "$n" "$seed" "$limit" "$cmd" "$core" "$vmode" "$dir" <<'PY'
import json, os, random, subprocess, sys
bin, n, seed, limit, cmd, core, vmode, dir = sys.argv[1:9]
n, vmode = int(n), vmode == "1"
random.seed(int(seed))
path = os.path.join(dir, "i.json")


def run(args):
    """pipeopt ARGS --json on one core: the JSON object, or None."""
    r = subprocess.run(["taskset", "-c", core, bin] + args + ["--json"],
                       capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def draw():
    """A random instance without its limit, and its kind."""
    if vmode:
        kind, p = "v", random.choice([8, 10, 12])
        m = random.randint(2 * p, 3 * p)
        F = random.randint(2, 12)
        B = F if random.random() < 0.5 else max(1, int(F * random.uniform(0.7, 1.5)))
    else:
        kind = random.choice(["chain", "v", "v", "interleaved", "waves"])
        p = random.choice([4, 6]) if kind == "waves" else random.choice([3, 4, 4, 6, 8])
        m = random.randint(p, 4 * p)
        F = random.randint(2, 40)
        B = max(1, int(F * random.uniform(0.7, 1.5)))
    W = max(1, int(F * random.uniform(0.3, 1.0)))
    c = random.choice([0, 1, 2]) if vmode else random.choice([0, 1, 1, 2, 5])
    inst = {"name": f"beat-{seed}-{kind}", "devices": p, "microbatches": m,
            "cost": {"F": F, "B": B, "W": W}, "comm": c,
            "memory": {"F": 2, "B": -1, "W": -1}}
    place = {"v": (2, "v"), "waves": (4, "v"), "interleaved": (2, "interleaved")}
    if kind in place:
        inst["chunks"], inst["placement"] = place[kind]
    return kind, inst


def feasible(inst):
    json.dump(inst, open(path, "w"))
    r = run(["families", path])
    return [x for x in (r or {}).get("results", []) if x["status"] in ("feasible", "optimal")]


print(f"| # | kind | p | m | F, B, W | comm | limit (peak of) | best family | {cmd} {limit} s | bound | verdict |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
count = {"beaten": 0, "optimal": 0, "tie": 0, "worse": 0, "error": 0}
for i in range(n):
    kind, inst = draw()
    fams = feasible(inst)
    if vmode:
        fams = [x for x in fams if x["family"] == "v-min"]
    if not fams:
        continue
    of = random.choice(fams)
    inst["memory"]["limit"] = max(of["peak_memory"])
    fams = feasible(inst)
    if not fams:   # the drawn family does not stand at its own peak: a defect
        print(f"| {i} | {kind} | - | - | - | - | {inst['memory']['limit']} ({of['family']}) "
              f"| none valid: {json.dumps(inst)} | - | - | error |", flush=True)
        count["error"] += 1
        continue
    best = min(fams, key=lambda x: x["makespan"])
    b = (run(["bound", path]) or {}).get("lower_bound")
    s = run([cmd, path, "--time-limit", limit, "--no-timeline"]) or {}
    got = s.get("makespan")
    if b is not None and s.get("lower_bound") is not None:
        b = max(b, s["lower_bound"])
    if got is None or b is None:
        verdict = "error"
    elif got < best["makespan"]:
        verdict = "beaten"
    elif got > best["makespan"]:
        verdict = "worse"
    else:
        verdict = "optimal" if got == b else "tie"
    count[verdict] += 1
    cst = inst["cost"]
    print(f"| {i} | {kind} | {inst['devices']} | {inst['microbatches']} | {cst['F']}, {cst['B']}, {cst['W']} "
          f"| {inst['comm']} | {inst['memory']['limit']} ({of['family']}) | {best['makespan']} ({best['family']}) "
          f"| {got} | {b} | {verdict} |", flush=True)
print()
print(", ".join(f"{k} {v}" for k, v in count.items()) + f" (of {sum(count.values())} rows)")
PY
