#!/usr/bin/env bash
# The GA's quality where it matters (issue 14): `pipeopt search` with a
# 10 s limit (default settings: the exact solve alongside the GA) on every
# class of the exact-solver grid whose optimum was certified by the exact
# search or a MILP, not by the bound alone (bench/results/solve-*-60s.md:
# there the families already meet the bound). Per class: the certified
# optimum and what proved it, search's objective, whether it reached the
# optimum, the time to its best, why it stopped, and where its best came
# from.
#
# usage: bench/search.sh [-t SECONDS] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=10
while getopts "t:" opt; do
  case $opt in t) limit=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# class, optimum, certified by: the rows of the 60 s tables certified by
# something other than the bound
python3 - bench/results/solve-cbc-auto-60s.md bench/results/solve-new-classes-60s.md > "$dir/classes" <<'PY'
import sys
seen = set()
for path in sys.argv[1:]:
    for line in open(path):
        c = [x.strip() for x in line.split("|")]
        row = None
        if len(c) > 10 and c[1].startswith("p") and c[5] == "optimal" and c[9] not in ("bound", "-"):
            row = (c[1], c[6], c[9])   # the grid tables
        elif len(c) == 11 and c[1].startswith("p") and c[4] == "optimal" and c[7] not in ("bound", "-"):
            row = (c[1], c[5], c[7])   # the later sections: class, solver, formulation, status, ...
        if row and row[0] not in seen:
            seen.add(row[0])
            print(*row)
PY
printf '| class | optimum | certified by | search %s s | reached | time to best s | stopped by | best from |\n' "$limit"
printf '|---|---|---|---|---|---|---|---|\n'
reached=0 total=0
while read -r name opt by; do
  IFS=- read -r p m bw mem comm costs <<< "${name}"
  python3 bench/grid_instance.py "${p#p}" "${m#m}" "$bw" "$mem" "${comm#c}" "$costs" > "$dir/i.json"
  "$bin" search "$dir/i.json" --time-limit "$limit" --json > "$dir/r.json" 2>/dev/null || true
  line=$(python3 - "$dir/r.json" "$name" "$opt" "$by" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
name, opt, by = sys.argv[2], int(sys.argv[3]), sys.argv[4]
ok = j["objective"] == opt
if j["objective"] < opt:
    ok = "BELOW THE OPTIMUM"
print(f'| {name} | {opt} | {by} | {j["objective"]} | {"yes" if ok is True else ok if ok else "no"} '
      f'| {j["time_to_best"]:.2f} | {j["stopped_by"]} | {j["seed_from"]} |')
PY
)
  echo "$line"
  total=$((total + 1))
  case "$line" in *"| yes |"*) reached=$((reached + 1)) ;; esac
done < "$dir/classes"
echo
echo "reached the certified optimum within $limit s: $reached of $total"
