#!/usr/bin/env bash
# Zero Bubble's controllable-memory families at their own memory on larger
# V pipelines (issue 17: "the GA and the exact solver beat every family
# where the families leave bubbles; V-Min's bubble grows with m when F,
# B and W differ"), beyond the exact solver: `search` against the best
# family.
#
# Instances: V placement (p devices, 2 chunks each), split backward, comm
# per cost set, memory per chunk F +2, B -1, W -1. Cost sets (per chunk):
#   ds   F 40, B 40, W 20, comm 1 (bench/deepseek.sh's DeepSeek-like costs)
#   gpt  F 9261, B 9043, W 4669, comm 601 us (Zero Bubble's GPT 1.5B,
#        bench/recompute.sh)
#   342  F 3, B 4, W 2, comm 1 (bench/vfamilies-small.sh's second set)
# The limit is the simulated peak of v-min (or of v-half with -l v-half, or
# of zb-v, 1F1B's memory, with -l zb-v).
# Per row: the best family valid at that limit (simulated), `search` for
# T seconds (or `solve` with -s solve), its gain over that family, and
# `pipeopt bound`.
#
# usage: bench/vfamilies-large.sh [-t SECONDS] [-p "8 12 16"] [-m "16 32 48"]
#                                 [-c "ds gpt 342"] [-l v-min|v-half|zb-v]
#                                 [-s search|solve] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=10 ps="8 12 16" ms="16 32 48" cs="ds gpt 342" of=v-min cmd=search
while getopts "t:p:m:c:l:s:" opt; do
  case $opt in
    t) limit=$OPTARG ;; p) ps=$OPTARG ;; m) ms=$OPTARG ;; c) cs=$OPTARG ;; l) of=$OPTARG ;; s) cmd=$OPTARG ;;
    *) exit 2 ;;
  esac
done
case $of in v-min | v-half | zb-v) ;; *) echo "bench/vfamilies-large.sh: -l $of: expected v-min, v-half or zb-v" >&2; exit 2 ;; esac
case $cmd in search | solve) ;; *) echo "bench/vfamilies-large.sh: -s $cmd: expected search or solve" >&2; exit 2 ;; esac
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
. bench/lib.sh
bench_tmpdir

# instance p m costs limit -> stdout
instance() {
  python3 - "$@" <<'PY'
import json, sys
p, m, c, lim = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
costs = {"ds": (40, 40, 20, 1), "gpt": (9261, 9043, 4669, 601), "342": (3, 4, 2, 1)}
if c not in costs:
    sys.exit(f"bench/vfamilies-large.sh: cost set '{c}': expected ds, gpt or 342")
F, B, W, comm = costs[c]
inst = {"name": f"v{p}-m{m}-{c}", "devices": p, "microbatches": m, "chunks": 2,
        "placement": "v", "cost": {"F": F, "B": B, "W": W}, "comm": comm,
        "memory": {"F": 2, "B": -1, "W": -1}}
if lim != "none":
    inst["memory"]["limit"] = int(lim)
print(json.dumps(inst))
PY
}

printf '| p | m | costs | limit (peak of %s) | best family | %s %s s | gain | bound |\n' "$of" "$cmd" "$limit"
printf '|---|---|---|---|---|---|---|---|\n'
for p in $ps; do for m in $ms; do for c in $cs; do
  instance "$p" "$m" "$c" none > "$dir/free.json"
  lim=$({ "$bin" simulate "$dir/free.json" --family "$of" --json --no-timeline 2>/dev/null || true; } | json_field peak)
  instance "$p" "$m" "$c" "$lim" > "$dir/i.json"
  fam=$({ "$bin" families "$dir/i.json" --json 2>/dev/null || true; } | python3 -c '
import json, sys
try:
    rs = [r for r in json.load(sys.stdin)["results"] if r["status"] in ("feasible", "optimal")]
    b = min(rs, key=lambda r: r["makespan"])
    print(b["makespan"], b["family"])
except Exception:
    print("- -")')
  s=$({ "$bin" "$cmd" "$dir/i.json" --time-limit "$limit" --json --no-timeline 2>/dev/null || true; } | json_field makespan)
  b=$({ "$bin" bound "$dir/i.json" --json 2>/dev/null || true; } | json_field lower_bound)
  # shellcheck disable=SC2086
  set -- $fam
  gain=$(python3 -c 'import sys
f, s = sys.argv[1], sys.argv[2]
print("-" if "-" in (f, s) else f"{100 * (int(f) - int(s)) / int(f):.2f} %")' "$1" "$s")
  echo "| $p | $m | $c | $lim | $1 ($2) | $s | $gain | $b |"
done; done; done
