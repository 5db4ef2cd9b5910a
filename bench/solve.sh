#!/usr/bin/env bash
# Exact-solver benchmark: instance classes p in {2,4,8}, m in {4,8,12,16},
# fused or split backward, memory unlimited / 2p / p activations, comm 0 or
# 1, uniform (1,1,1) or uneven (5,6,4) costs (or any F,B,W triples with -C,
# costs unseen by the defaults: a held-out check); each solved with the given
# solvers and formulations under a time limit. Prints a markdown table
# (status, objective, bound, seconds, nodes, binaries) and writes every
# result as JSON lines.
#
# Per class also: the best family's and zb-auto's objective with their
# distance to the result's bound, and with -T "1 5 15" the incumbent/bound
# at each of those time limits (one more solve each: the gap against time).
#
# usage: bench/solve.sh [-t SECONDS] [-s "cbc glpk"] [-f "auto disjunctive time-indexed"]
#                       [-p "2 4 8"] [-m "4 8 12 16"] [-M "unlimited 2p p"] [-c "0 1"]
#                       [-C "uniform uneven 2,3,1"] [-T "1 5 15"] [-o results.jsonl] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=60 solvers="cbc" forms="auto" ps="2 4 8" ms="4 8 12 16" out=/dev/null
mems="unlimited 2p p" comms="0 1" checkpoints="" costsets="uniform uneven"
while getopts "t:s:f:p:m:M:c:C:T:o:" opt; do
  case $opt in
    t) limit=$OPTARG ;; s) solvers=$OPTARG ;; f) forms=$OPTARG ;;
    p) ps=$OPTARG ;; m) ms=$OPTARG ;; M) mems=$OPTARG ;; c) comms=$OPTARG ;; C) costsets=$OPTARG ;;
    T) checkpoints=$OPTARG ;; o) out=$OPTARG ;; *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

instance() {   # p m backward mem comm costs -> file
  local p=$1 m=$2 bw=$3 mem=$4 comm=$5 costs=$6 f
  f="$dir/p$1-m$2-$3-$4-c$5-$6.json"
  python3 bench/grid_instance.py "$@" > "$f"
  echo "$f"
}

printf '| instance | ops | solver | formulation | status | objective | bound | gap | certified by | seconds | nodes | binaries | best family (above bound) | zb-auto (above bound) | incumbent/bound at %s s |\n' "${checkpoints:--}"
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for p in $ps; do for m in $ms; do for bw in fused split; do
for mem in $mems; do for comm in $comms; do for costs in $costsets; do
  f=$(instance "$p" "$m" "$bw" "$mem" "$comm" "$costs")
  kinds=2; [ "$bw" = split ] && kinds=3
  for s in $solvers; do for fm in $forms; do
    res=$("$bin" solve "$f" --solver "$s" --formulation "$fm" --time-limit "$limit" --json 2>/dev/null || true)
    [ -n "$res" ] || res='{"status":"error"}'
    zb=$("$bin" simulate "$f" --family zb-auto --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["objective"])' 2>/dev/null || echo -)
    traj=""
    for c in $checkpoints; do
      traj="$traj $("$bin" solve "$f" --solver "$s" --formulation "$fm" --time-limit "$c" --json 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%s/%s" % (j["objective"], j["bound"]))' 2>/dev/null || echo -)"
    done
    export ZB="$zb" TRAJ="${traj:- -}"
    echo "$res" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
name, ops, s, fm, out = sys.argv[1:6]
j["bench"] = {"instance": name, "ops": int(ops), "solver": s, "formulation": fm}
with open(out, "a") as fh:
    fh.write(json.dumps({k: v for k, v in j.items() if k != "schedule"}) + "\n")
g = lambda k, d="-": j.get(k, d)
import os
def above(v):
    try:
        v, b = int(v), int(j["bound"])
        return "%d (%.2f %%)" % (v, 100.0 * (v - b) / v)
    except (KeyError, TypeError, ValueError):
        return "-"
fam = j.get("heuristic", {}).get("objective", "-") if isinstance(j.get("heuristic"), dict) else "-"
print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (name, ops, s, g("formulation", fm),
      g("status"), g("objective"), g("bound"), "%.2f %%" % (100 * j["gap"]) if j.get("gap") is not None else "-",
      g("certified_by") or "-", "%.1f" % j["seconds"] if "seconds" in j else "-", g("nodes"), g("binaries"),
      above(fam), above(os.environ["ZB"]), os.environ["TRAJ"].strip()))
' "$(basename "$f" .json)" "$(( p * m * kinds ))" "$s" "$fm" "$out"
  done; done
done; done; done; done; done; done
