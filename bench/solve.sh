#!/usr/bin/env bash
# Exact-solver benchmark: instance classes p in {2,4,8}, m in {4,8,12,16},
# fused or split backward, memory unlimited / 2p / p activations, comm 0 or
# 1, uniform (1,1,1) or uneven (5,6,4) costs; each solved with the given
# solvers and formulations under a time limit. Prints a markdown table
# (status, objective, bound, seconds, nodes, binaries) and writes every
# result as JSON lines.
#
# usage: bench/solve.sh [-t SECONDS] [-s "cbc glpk"] [-f "auto disjunctive time-indexed"]
#                       [-p "2 4 8"] [-m "4 8 12 16"] [-o results.jsonl] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=60 solvers="cbc" forms="auto" ps="2 4 8" ms="4 8 12 16" out=/dev/null
while getopts "t:s:f:p:m:o:" opt; do
  case $opt in
    t) limit=$OPTARG ;; s) solvers=$OPTARG ;; f) forms=$OPTARG ;;
    p) ps=$OPTARG ;; m) ms=$OPTARG ;; o) out=$OPTARG ;; *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

instance() {   # p m backward mem comm costs -> file
  local p=$1 m=$2 bw=$3 mem=$4 comm=$5 costs=$6 f
  f="$dir/p$1-m$2-$3-$4-c$5-$6.json"
  python3 - "$@" > "$f" <<'PY'
import json, sys
p, m, bw, mem, comm, costs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
c = {"F": 1, "B": 1, "W": 1} if costs == "uniform" else {"F": 5, "B": 6, "W": 4}
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
PY
  echo "$f"
}

printf '| instance | ops | solver | formulation | status | objective | bound | gap | certified by | seconds | nodes | binaries |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for p in $ps; do for m in $ms; do for bw in fused split; do
for mem in unlimited 2p p; do for comm in 0 1; do for costs in uniform uneven; do
  f=$(instance "$p" "$m" "$bw" "$mem" "$comm" "$costs")
  kinds=2; [ "$bw" = split ] && kinds=3
  for s in $solvers; do for fm in $forms; do
    res=$("$bin" solve "$f" --solver "$s" --formulation "$fm" --time-limit "$limit" --json 2>/dev/null || true)
    [ -n "$res" ] || res='{"status":"error"}'
    echo "$res" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
name, ops, s, fm, out = sys.argv[1:6]
j["bench"] = {"instance": name, "ops": int(ops), "solver": s, "formulation": fm}
with open(out, "a") as fh:
    fh.write(json.dumps({k: v for k, v in j.items() if k != "schedule"}) + "\n")
g = lambda k, d="-": j.get(k, d)
print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (name, ops, s, g("formulation", fm),
      g("status"), g("objective"), g("bound"), "%.2f %%" % (100 * j["gap"]) if "gap" in j else "-",
      g("certified_by") or "-", "%.1f" % j["seconds"] if "seconds" in j else "-", g("nodes"), g("binaries")))
' "$(basename "$f" .json)" "$(( p * m * kinds ))" "$s" "$fm" "$out"
  done; done
done; done; done; done; done; done
