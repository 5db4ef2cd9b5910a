#!/usr/bin/env bash
# Lower bounds on devices of several stages (V and interleaved placements,
# issue 14): per instance the closed-form bound (`pipeopt bound`) and the
# argument that gave it, and with -t S the exact solver's incumbent and
# bound after S seconds (`solve --time-limit S`, one core). Instances:
# p = 4, m = 8, 2 chunks, split backward, costs (F, B, W) = (2, 3, 1) and
# (3, 4, 2), memory F +2, B -1, W -1 with limits 6 and 8 (V) or 8 and 10
# (interleaved), comm 0 and 1; then the DeepSeek-like V instances of
# bench/deepseek.sh (p = 8 and 16, m = 32) at the peaks of zb-v, v-half
# and v-min, with v-min's makespan beside the bound (no solve: 1536 and
# 3072 ops).
#
# usage: bench/bound-shared.sh [-t SECONDS] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=0
while getopts "t:" opt; do
  case $opt in t) limit=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
. bench/lib.sh
bench_tmpdir

inst() {   # placement p m F B W limit comm
  printf '{"name":"%s-p%s-m%s-%s%s%s-l%s-c%s","devices":%s,"microbatches":%s,"chunks":2,"placement":"%s","cost":{"F":%s,"B":%s,"W":%s},"comm":%s,"memory":{"F":2,"B":-1,"W":-1,"limit":%s}}\n' \
    "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$2" "$3" "$1" "$4" "$5" "$6" "$8" "$7"
}

printf '| instance | bound | by | solve %s s: incumbent/bound |\n|---|---|---|---|\n' "$limit"
for pl in v interleaved; do for costs in "2 3 1" "3 4 2"; do
  lims="6 8"; [ "$pl" = interleaved ] && lims="8 10"
  for lim in $lims; do for c in 0 1; do
    # shellcheck disable=SC2086
    inst "$pl" 4 8 $costs "$lim" "$c" > "$dir/i.json"
    name=$(json_field name < "$dir/i.json")
    b=$("$bin" bound "$dir/i.json" --json)
    s="-"
    if [ "$limit" != 0 ]; then
      s=$("$bin" solve "$dir/i.json" --time-limit "$limit" --json 2>/dev/null |
          python3 -c 'import json, sys; j = json.load(sys.stdin); print("%d/%d%s" % (j["objective"], j["bound"], " (optimal)" if j["certified"] else ""))' || echo -)
    fi
    echo "| $name | $(json_field lower_bound <<< "$b") | $(json_field bound_by <<< "$b") | $s |"
  done; done
done; done

printf '\n| DeepSeek-like | limit (peak of) | bound | by | v-min |\n|---|---|---|---|---|\n'
for p in 8 16; do
  printf '{"name":"ds","devices":%s,"microbatches":32,"chunks":2,"placement":"v","cost":{"F":40,"B":40,"W":20},"comm":1,"memory":{"F":2,"B":-1,"W":-1}}\n' "$p" > "$dir/free.json"
  for of in zb-v v-half v-min; do
    lim=$({ "$bin" simulate "$dir/free.json" --family "$of" --json --no-timeline 2>/dev/null || true; } | json_field peak)
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["memory"]["limit"] = int(sys.argv[2]); print(json.dumps(d))' \
      "$dir/free.json" "$lim" > "$dir/i.json"
    b=$("$bin" bound "$dir/i.json" --json)
    v=$({ "$bin" simulate "$dir/i.json" --family v-min --json --no-timeline 2>/dev/null || true; } | json_field makespan)
    echo "| p$p m32 | $lim ($of) | $(json_field lower_bound <<< "$b") | $(json_field bound_by <<< "$b") | $v |"
  done
done
