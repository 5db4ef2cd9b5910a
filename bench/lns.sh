#!/usr/bin/env bash
# The local search by exact neighbourhoods (solvers/lns.h) in `search`:
# on the tight-memory grid classes (p activations, comm 1; p = 4 and 8,
# m = 8 to 32, fused and split backward, uniform and uneven costs; at most
# 512 ops, the exact search's size), the GA without and with the local
# search, each `search --time-limit T --threads 1 --no-exact-seed` (the GA
# and its seeds alone: no MILP alongside). Per class: the closed-form
# bound, the best seed, both objectives, the local search's runs,
# improvements and seconds, and the time to the best. Classes whose best
# seed meets the bound are left out (search stops at once). -p, -m, -c
# and -C choose other classes (costs as in bench/solve.sh: "uniform",
# "uneven" or F,B,W triples such as 2,3,1, costs the grid does not have).
#
# usage: bench/lns.sh [-t SECONDS] [-p "4 8"] [-m "8 12 16 24 32"] [-c "1"]
#                     [-C "uniform uneven"] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=5 ps="4 8" ms="8 12 16 24 32" comms=1 costsets="uniform uneven"
while getopts "t:p:m:c:C:" opt; do
  case $opt in
    t) limit=$OPTARG ;; p) ps=$OPTARG ;; m) ms=$OPTARG ;; c) comms=$OPTARG ;;
    C) costsets=$OPTARG ;; *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '| class | bound | best seed | GA %s s | GA + local search %s s | local search: runs, better, s | time to best s | best from |\n' "$limit" "$limit"
printf '|---|---|---|---|---|---|---|---|\n'
for p in $ps; do for m in $ms; do for bw in fused split; do for comm in $comms; do for costs in $costsets; do
  k=2; [ "$bw" = split ] && k=3
  [ $((k * p * m)) -le 512 ] || continue
  python3 bench/grid_instance.py "$p" "$m" "$bw" p "$comm" "$costs" > "$dir/i.json"
  "$bin" search "$dir/i.json" --time-limit "$limit" --threads 1 --no-exact-seed --no-local-search --json > "$dir/a.json" 2>/dev/null || true
  "$bin" search "$dir/i.json" --time-limit "$limit" --threads 1 --no-exact-seed --json > "$dir/b.json" 2>/dev/null || true
  python3 - "$dir/a.json" "$dir/b.json" "p$p-m$m-$bw-p-c$comm-$costs" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
if b["best_seed"]["objective"] <= b["lower_bound"]:
    sys.exit(0)
ls = b["local_search"]
print(f'| {sys.argv[3]} | {b["lower_bound"]} | {b["best_seed"]["objective"]} ({b["best_seed"]["name"]}) '
      f'| {a["objective"]} | {b["objective"]} | {ls["runs"]}, {ls["improvements"]}, {ls["seconds"]:.2f} '
      f'| {b["time_to_best"]:.2f} | {b["seed_from"]} |')
PY
done; done; done; done; done
