#!/usr/bin/env bash
# A DeepSeek-V3-like instance (issue 17 item 5): what F&B overlap,
# recomputation and offload buy at equal memory, against the families.
#
# The instance (costs derived, not measured; provenance in
# bench/results/deepseek.md): DualPipeV's V placement, p devices (16, as
# DeepSeek-V3's pipeline; 8 too), 2 chunks each (2p stages), per chunk F 40 = forward compute 20 + expert-parallel
# all-to-all 20 (DeepSeek-V3's report, arXiv 2412.19437, section 3.2.1:
# cross-node expert parallelism gives a computation-to-communication
# ratio of about 1:1), B 40 (input gradient: compute 20 + the all-to-all's
# backward 20), W 20 (weight gradient, no all-to-all), comm 1 between
# stages (the hidden state, 7168 x 4096 tokens x 2 bytes = 59 MB per
# micro-batch, about a twentieth of a chunk's compute on a 50 GB/s link);
# memory per chunk F +2, B -1, W -1. Overlap rho = 0: a pair of an F and a
# B lasts max(40, 40) = 40 = the two computes, both all-to-alls hidden,
# DualPipe's claim at 1:1. Recompute R 40 (the chunk's forward again, its
# all-to-all included), keep 0. Offload O = L = 40 (an assumption: a copy
# as long as a chunk's forward), keep 0.
#
# Memory limits: the peaks of zb-v (1F1B's, "1p"), v-half and v-min on the
# instance, simulated. Per (m, limit): each family valid there
# (simulated), then `search` for T seconds without decisions, with
# overlap, with recompute and with offload, and the lower bound (without
# decisions; the exact solver does not reach 1536 or 3072 ops).
#
# With -e, instead: memory at equal makespan. For each family of zb-v,
# v-half and v-min (its makespan X at its own peak) and each variant
# (none, overlap, recompute, offload), the least memory limit at which
# `search` (T seconds) reaches a makespan <= X, found by bisection over the
# limits 2 to the family's peak (1 holds no forward's 2 units; the family's
# own schedule is a seed and stays valid with every key, so the peak always
# reaches X). The GA is a
# heuristic: a limit it misses is not proven infeasible, and the bisection
# assumes that a larger limit never does worse.
#
# -c gpt takes Zero Bubble's GPT 1.5B costs on the same V placement
# instead (bench/recompute.sh's second table: per chunk F 9261, B 9043,
# W 4669, comm 601 us; recompute R 9261 and offload O = L = 9261, keep 0;
# overlap factor 0.5, bench/overlap.sh's middle value, no published one).
#
# usage: bench/deepseek.sh [-e] [-c deepseek|gpt] [-t SECONDS] [-p "8 16"] [-m "32"] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=10 ms="32" ps="16" equal=0 costs=deepseek
while getopts "ec:t:p:m:" opt; do
  case $opt in
    e) equal=1 ;; c) costs=$OPTARG ;; t) limit=$OPTARG ;; p) ps=$OPTARG ;; m) ms=$OPTARG ;;
    *) exit 2 ;;
  esac
done
case $costs in deepseek | gpt) ;; *) echo "bench/deepseek.sh: -c $costs: expected deepseek or gpt" >&2; exit 2 ;; esac
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
. bench/lib.sh
bench_tmpdir
fams="zb-v v-half v-min dualpipev"

# instance p m limit variant -> stdout
instance() {
  python3 - "$costs" "$@" <<'PY'
import json, sys
costs, p, m, lim, var = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
if costs == "gpt":
    name, cost, comm, rho, r = "gpt-1.5b", {"F": 9261, "B": 9043, "W": 4669}, 601, 0.5, 9261
else:
    name, cost, comm, rho, r = "deepseek-like", {"F": 40, "B": 40, "W": 20}, 1, 0, 40
inst = {"name": f"{name}-v{p}-m{m}-{var}", "devices": p, "microbatches": m, "chunks": 2,
        "placement": "v", "cost": cost, "comm": comm,
        "memory": {"F": 2, "B": -1, "W": -1}}
if lim != "none":
    inst["memory"]["limit"] = int(lim)
if var == "overlap":
    inst["overlap"] = {"factor": rho}
elif var == "recompute":
    inst["recompute"] = {"R": r, "keep": 0}
elif var == "offload":
    inst["offload"] = {"O": r, "L": r, "keep": 0}
print(json.dumps(inst))
PY
}

# searched p m limit variant -> the search's makespan, or -
searched() {
  instance "$1" "$2" "$3" "$4" > "$dir/s.json"
  { "$bin" search "$dir/s.json" --time-limit "$limit" --json --no-timeline 2>/dev/null || true; } | json_field makespan
}

# least p m variant target peak -> "L (makespan)": the least limit found
least() {
  local lo=1 hi=$5 best ms   # lo: not reached (assumed), hi: reached
  best=$(searched "$1" "$2" "$hi" "$3")
  while [ $((hi - lo)) -gt 1 ]; do
    local mid=$(((lo + hi) / 2))
    ms=$(searched "$1" "$2" "$mid" "$3")
    if [ "$ms" != - ] && [ "$ms" -le "$4" ]; then hi=$mid best=$ms; else lo=$mid; fi
  done
  echo "$hi ($best)"
}

if [ "$equal" = 1 ]; then
  printf '| p | m | family | its peak | its makespan | least limit (makespan): search %s s | with overlap | with recompute | with offload |\n' "$limit"
  printf '|---|---|---|---|---|---|---|---|---|\n'
  for p in $ps; do for m in $ms; do
    instance "$p" "$m" none plain > "$dir/free.json"
    for of in zb-v v-half v-min; do
      r=$({ "$bin" simulate "$dir/free.json" --family "$of" --json --no-timeline 2>/dev/null || true; } |
          python3 -c 'import json, sys; d = json.load(sys.stdin); print(max(d["peak_memory"]), d["makespan"])')
      # shellcheck disable=SC2086
      set -- $r
      row="| $p | $m | $of | $1 | $2 |"
      for var in plain overlap recompute offload; do
        row="$row $(least "$p" "$m" "$var" "$2" "$1") |"
      done
      echo "$row"
    done
  done; done
  exit 0
fi

printf '| p | m | limit (peak of) | %s | search %s s | with overlap | with recompute | with offload | bound |\n' \
  "$(echo $fams | sed 's/ / | /g')" "$limit"
printf '|---|---|---|%s---|---|---|---|---|\n' "$(for f in $fams; do printf -- '---|'; done)"
for p in $ps; do for m in $ms; do
  instance "$p" "$m" none plain > "$dir/free.json"
  for of in zb-v v-half v-min; do
    lim=$({ "$bin" simulate "$dir/free.json" --family "$of" --json --no-timeline 2>/dev/null || true; } | json_field peak)
    row="| $p | $m | $lim ($of) |"
    instance "$p" "$m" "$lim" plain > "$dir/p.json"
    for f in $fams; do
      row="$row $({ "$bin" simulate "$dir/p.json" --family "$f" --json --no-timeline 2>/dev/null || true; } | json_field makespan) |"
    done
    for var in plain overlap recompute offload; do
      instance "$p" "$m" "$lim" "$var" > "$dir/v.json"
      row="$row $({ "$bin" search "$dir/v.json" --time-limit "$limit" --json --no-timeline 2>/dev/null || true; } | json_field makespan) |"
    done
    row="$row $({ "$bin" bound "$dir/p.json" --json 2>/dev/null || true; } | json_field lower_bound) |"
    echo "$row"
  done
done; done
