#!/usr/bin/env bash
# Zero Bubble's controllable-memory families against the exact solver and
# the GA on V placements small enough to certify (issue 17: "the GA and the
# exact solver beat every family where the families leave bubbles, or prove
# the family optimal"; V-Min's bubble grows with m when F, B and W differ).
#
# Instances: p devices, 2 chunks each on the V placement, m micro-batches,
# split backward with per-chunk costs (F, B, W) = (2, 3, 1) or (3, 4, 2),
# comm 1, memory F +2, B -1, W -1, and as the limit the simulated peak of
# v-min, then of v-half (the families' own memory: each family is valid at
# its own peak; one row where the two peaks are equal). Per instance: zb-v, v-half and v-min simulated ("-" where
# over the limit), `solve --time-limit S` (objective/bound, "opt" when
# certified), `search --time-limit G` (the GA), and the best valid family's
# excess over solve's objective.
#
# usage: bench/vfamilies-small.sh [-t SOLVE_SECONDS] [-g SEARCH_SECONDS]
#                                 [-p "2 3 4"] [-m "4 6 8"] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
tsolve=30
tsearch=10
ps="2 3 4"
ms="4 6 8"
while getopts "t:g:p:m:" opt; do
  case $opt in
    t) tsolve=$OPTARG ;;
    g) tsearch=$OPTARG ;;
    p) ps=$OPTARG ;;
    m) ms=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
. bench/lib.sh
bench_tmpdir

family() {   # FAMILY INSTANCE: makespan, or - where invalid
  { "$bin" simulate "$2" --family "$1" --json --no-timeline 2>/dev/null || true; } | json_field makespan
}
with_limit() {   # FREE LIMIT > instance with that memory limit
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["memory"]["limit"] = int(sys.argv[2]); print(json.dumps(d))' "$1" "$2"
}

printf '| p | m | F,B,W | limit (peak of) | zb-v | v-half | v-min | solve %s s | search %s s | best family above solve |\n' "$tsolve" "$tsearch"
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for p in $ps; do for m in $ms; do for costs in "2 3 1" "3 4 2"; do
  # shellcheck disable=SC2086
  set -- $costs
  printf '{"name":"v-p%s-m%s-%s%s%s","devices":%s,"microbatches":%s,"chunks":2,"placement":"v","cost":{"F":%s,"B":%s,"W":%s},"comm":1,"memory":{"F":2,"B":-1,"W":-1}}\n' \
    "$p" "$m" "$1" "$2" "$3" "$p" "$m" "$1" "$2" "$3" > "$dir/free.json"
  last=-
  for of in v-min v-half; do
    lim=$({ "$bin" simulate "$dir/free.json" --family "$of" --json --no-timeline 2>/dev/null || true; } | json_field peak)
    [ "$lim" = "$last" ] && continue   # v-half's peak is v-min's (p = 3): one row
    last=$lim
    with_limit "$dir/free.json" "$lim" > "$dir/i.json"
    zv=$(family zb-v "$dir/i.json"); vh=$(family v-half "$dir/i.json"); vm=$(family v-min "$dir/i.json")
    so=$("$bin" solve "$dir/i.json" --time-limit "$tsolve" --json --no-progress 2>/dev/null |
         python3 -c 'import json, sys; j = json.load(sys.stdin); print("%d/%d%s" % (j["objective"], j["bound"], " opt" if j["certified"] else ""))' || echo -)
    se=$("$bin" search "$dir/i.json" --time-limit "$tsearch" --json --no-progress 2>/dev/null | json_field objective)
    excess=$(python3 -c 'import sys
fams = [int(x) for x in sys.argv[1:4] if x != "-"]
try:
    opt = int(sys.argv[4].split("/")[0])
    best = min(fams)
    print("%d (%.1f %%)" % (best - opt, 100.0 * (best - opt) / opt))
except Exception:
    print("-")' "$zv" "$vh" "$vm" "$so")
    echo "| $p | $m | $1,$2,$3 | $lim ($of) | $zv | $vh | $vm | $so | $se | $excess |"
  done
done; done; done
