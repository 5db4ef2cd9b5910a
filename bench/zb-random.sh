#!/usr/bin/env bash
# zb-auto against zb-warm on random chains of Zero Bubble-like costs:
# p in {4, 8, 16}, m in {2p, 3p, 4p} (3p, 4p at p = 16), F 9000-30000,
# B = F +- 10 %, W 0.3-0.8 F, comm 100-900, memory F +2 / B -1 / W -1 with
# limit 2p or 4p (1p, 2p), span or makespan; a fixed seed. Per instance:
# each family's distance above the lower bound (0.000 = certified by the
# bound), then the counts.
#
# usage: bench/zb-random.sh [-n INSTANCES] [-s SEED] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
n=40 seed=11
while getopts "n:s:" opt; do
  case $opt in n) n=$OPTARG ;; s) seed=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
python3 - "$bin" "$n" "$seed" <<'PY'
import json, os, random, subprocess, sys, tempfile
bin, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(seed)
path = os.path.join(tempfile.mkdtemp(), "i.json")
print("| p | m | memory | objective | lower bound | zb-auto above | zb-warm above |")
print("|---|---|---|---|---|---|---|")
cert = {"zb-auto": 0, "zb-warm": 0}
for it in range(n):
    p = random.choice([4, 8, 16])
    m = random.choice([2 * p, 3 * p, 4 * p]) if p < 16 else random.choice([3 * p, 4 * p])
    F = random.randint(9000, 30000)
    B = int(F * random.uniform(0.9, 1.1))
    W = int(F * random.uniform(0.3, 0.8))
    c = random.randint(100, 900)
    mem = random.choice(["1p", "2p"])
    obj = random.choice(["span", "makespan"])
    inst = {"name": f"zb-random-{it}", "devices": p, "microbatches": m,
            "cost": {"F": F, "B": B, "W": W}, "comm": c, "objective": obj,
            "memory": {"F": 2, "B": -1, "W": -1, "limit": 2 * p if mem == "1p" else 4 * p}}
    with open(path, "w") as f:
        json.dump(inst, f)
    row, lb = {}, None
    for fam in ("zb-auto", "zb-warm"):
        r = subprocess.run([bin, "simulate", path, "--family", fam, "--json", "--no-timeline"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            j = json.loads(r.stdout)
            row[fam], lb = j["objective"], j["bound"]
    def above(fam):
        if fam not in row:
            return "-"
        cert[fam] += row[fam] == lb
        return f"{100 * (row[fam] - lb) / lb:.3f} %"
    print(f"| {p} | {m} | {mem} | {obj} | {lb} | {above('zb-auto')} | {above('zb-warm')} |")
print()
print(f"certified by the bound: zb-auto {cert['zb-auto']}, zb-warm {cert['zb-warm']} of {n}")
PY
