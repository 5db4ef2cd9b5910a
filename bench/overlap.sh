#!/usr/bin/env bash
# F&B overlap (issue 17 item 1): what overlapped pairs buy on Zero Bubble's
# GPT 1.5B costs (Table 9 of arXiv 2401.10241, as in datasets/ga/zb-gpt:
# F 18522, B 18086, W 9337, comm 601 us per stage) on the V placement of
# DualPipeV: 8 devices, 2 chunks of half a stage each (F 9261, B 9043,
# W 4669 per chunk, comm 601), no memory limit, makespan. Overlap factor
# rho: none (pairs run back to back), 0.5, and 0 (the shorter op of a pair
# fully hidden, DualPipe's ideal); no published rho exists, so it is a
# parameter here. Per instance: each V family (simulated; dualpipev carries
# DualPipeV's pairs), `search` (the GA, its best then paired greedily),
# the bound and the gap. Then DualPipe itself: two copies of the model in
# opposite directions (two chains of 8 full stages, F 18522, B 18086,
# W 9337, comm 601, on the V placement), m/2 micro-batches per direction
# (the same m in all, the same work per device): the family and search.
#
# usage: bench/overlap.sh [-t SECONDS] [-m "24 32"] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=10 ms="24 32"
while getopts "t:m:" opt; do
  case $opt in t) limit=$OPTARG ;; m) ms=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fams="zb-v v-half v-min dualpipev"
printf '| m | overlap | %s | search %s s (pairs added) | bound | search above bound |\n' "$(echo $fams | sed 's/ / | /g')" "$limit"
printf '|---|---|%s---|---|---|\n' "$(for f in $fams; do printf -- '---|'; done)"
for m in $ms; do for rho in none 0.5 0; do
  python3 - "$m" "$rho" > "$dir/i.json" <<'PY'
import json, sys
m, rho = int(sys.argv[1]), sys.argv[2]
inst = {"name": f"gpt-1.5b-v-p8-m{m}-rho{rho}", "devices": 8, "microbatches": m, "chunks": 2,
        "placement": "v", "cost": {"F": 9261, "B": 9043, "W": 4669}, "comm": 601}
if rho != "none":
    inst["overlap"] = {"factor": float(rho)}
print(json.dumps(inst))
PY
  row="| $m | $rho |"
  for f in $fams; do
    v=$("$bin" simulate "$dir/i.json" --family "$f" --json --no-timeline 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan"])' 2>/dev/null || echo -)
    row="$row $v |"
  done
  "$bin" search "$dir/i.json" --time-limit "$limit" --json > "$dir/s.json"
  row="$row $(python3 - "$dir/s.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("%d (%s) | %d | %.2f %% |" % (j["makespan"], j.get("pairs_added", "-"), j["lower_bound"],
                                     100.0 * (j["makespan"] - j["lower_bound"]) / j["makespan"]))
PY
)"
  echo "$row"
done; done
echo
printf '| m (m/2 per direction) | overlap | dualpipe | search %s s (pairs added) | bound | search above bound |\n' "$limit"
printf '|---|---|---|---|---|---|\n'
for m in $ms; do for rho in none 0.5 0; do
  python3 - "$m" "$rho" > "$dir/d.json" <<'PY'
import json, sys
m, rho = int(sys.argv[1]), sys.argv[2]
edges = [[i, i + 1] for i in range(7)] + [[i, i + 1] for i in range(8, 15)]
inst = {"name": f"gpt-1.5b-dualpipe-p8-m{m}-rho{rho}", "devices": 8, "microbatches": m // 2,
        "chunks": 2, "placement": "v", "edges": edges,
        "cost": {"F": 18522, "B": 18086, "W": 9337}, "comm": 601}
if rho != "none":
    inst["overlap"] = {"factor": float(rho)}
print(json.dumps(inst))
PY
  v=$("$bin" simulate "$dir/d.json" --family dualpipe --json --no-timeline 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan"])' 2>/dev/null || echo -)
  "$bin" search "$dir/d.json" --time-limit "$limit" --json > "$dir/s.json"
  echo "| $m | $rho | $v | $(python3 - "$dir/s.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("%d (%s) | %d | %.2f %% |" % (j["makespan"], j.get("pairs_added", "-"), j["lower_bound"],
                                     100.0 * (j["makespan"] - j["lower_bound"]) / j["makespan"]))
PY
)"
done; done
