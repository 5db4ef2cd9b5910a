#!/usr/bin/env bash
# The wave and bidirectional families of issue 17 against the GA and the
# bound, on Zero Bubble's GPT 1.5B costs (Table 9 of arXiv 2401.10241:
# per stage F 18522, B + W 27423 us, a fused backward, as both Hanayo and
# BitPipe run it; comm 601 us), 8 devices, no memory limit, makespan:
#  - hanayo on the V placement with 2W chunks (W = 1, 2 waves), each chunk
#    1/(2W) of a stage;
#  - bitpipe: two copies of the model (BitPipe's placement, 4 chunks of
#    half a stage per device), m/2 micro-batches per direction;
#  - for reference 1f1b on the plain chain (one stage per device).
# Costs are floored to whole microseconds per chunk. Each row: the
# family's makespan and peak activations (chunk activations, memory F +1,
# B -1 per chunk), `search` for T seconds (the GA seeded with the
# families) and its peak, the lower bound, and the distances. With -l the
# search runs at the family's own memory: every device limited to the
# family's highest peak (the bound then includes that limit).
#
# usage: bench/waves.sh [-t SECONDS] [-m "16 32"] [-l] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=10 ms="16 32" own=0
while getopts "t:m:l" opt; do
  case $opt in t) limit=$OPTARG ;; m) ms=$OPTARG ;; l) own=1 ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '| m | placement | family | family makespan (peak) | search %s s%s (peak) | bound | family above bound | search above bound |\n' "$limit" "$([ "$own" = 1 ] && echo ' at its memory')"
printf '|---|---|---|---|---|---|---|---|\n'
for m in $ms; do
  for cfg in "linear 1f1b" "v2 hanayo" "v4 hanayo" "bitpipe bitpipe"; do
    set -- $cfg
    python3 - "$m" "$1" > "$dir/i.json" <<'PY'
import json, sys
m, kind = int(sys.argv[1]), sys.argv[2]
p, F, B, c = 8, 18522, 27423, 601
mem = {"F": 1, "B": -1}
if kind == "linear":
    inst = {"devices": p, "microbatches": m, "cost": {"F": F, "B": B}}
elif kind.startswith("v"):
    k = int(kind[1:])
    inst = {"devices": p, "microbatches": m, "chunks": k, "placement": "v",
            "cost": {"F": F // k, "B": B // k}}
else:
    pl = [s if s < p else 2 * p - 1 - s for s in range(2 * p)] + \
         [p - 1 - s if s < p else s - p for s in range(2 * p)]
    edges = [[s, s + 1] for s in range(2 * p - 1)] + [[2 * p + s, 2 * p + s + 1] for s in range(2 * p - 1)]
    inst = {"devices": p, "microbatches": m // 2, "placement": pl, "edges": edges,
            "cost": {"F": F // 2, "B": B // 2}}
inst.update({"name": f"gpt-1.5b-p8-m{m}-{kind}", "comm": c, "memory": mem})
print(json.dumps(inst))
PY
    "$bin" simulate "$dir/i.json" --family "$2" --json --no-timeline > "$dir/f.json"
    if [ "$own" = 1 ]; then
      python3 - "$dir/i.json" "$dir/f.json" <<'PY'
import json, sys
inst, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
inst["memory"]["limit"] = max(f["peak_memory"])
json.dump(inst, open(sys.argv[1], "w"))
PY
    fi
    "$bin" search "$dir/i.json" --time-limit "$limit" --json > "$dir/s.json"
    python3 - "$m" "$1" "$2" "$dir/f.json" "$dir/s.json" <<'PY'
import json, sys
m, kind, fam = sys.argv[1:4]
f, s = json.load(open(sys.argv[4])), json.load(open(sys.argv[5]))
lb = s["lower_bound"]
place = {"linear": "chain", "v2": "V, 2 chunks (1 wave)", "v4": "V, 4 chunks (2 waves)",
         "bitpipe": "two copies, 4 chunks"}[kind]
pk = lambda r: max(r["peak_memory"])
print(f'| {m} | {place} | {fam} | {f["makespan"]} ({pk(f)}) | {s["makespan"]} ({pk(s)}) | {lb} | '
      f'{100 * (f["makespan"] - lb) / lb:.2f} % | {100 * (s["makespan"] - lb) / lb:.2f} % |')
PY
  done
done
