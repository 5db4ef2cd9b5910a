#!/usr/bin/env bash
# The GA at scale: p = 64, m = 1024, split backward (196,608 ops;
# datasets/ga/scale), for S seconds on T threads: the best family, the GA's
# result, the improvement, the gap to the lower bound, generations and
# evaluations per second; and the validation suite's summary
# (datasets/ga/suite, 1 s per instance).
#
# usage: bench/ga-scale.sh [-t SECONDS] [-j THREADS] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=60 threads=$(nproc)
while getopts "t:j:" opt; do
  case $opt in t) limit=$OPTARG ;; j) threads=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
printf '| instance | ops | threads | seconds | best family | GA | improvement | lower bound | GA gap | generations | evaluations/s | time to best (s) |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in datasets/ga/scale/*.json; do
  "$bin" search "$f" --time-limit "$limit" --threads "$threads" --json > "$tmp/ga.json"
  python3 - "$tmp/ga.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
ops = sum(len(r) for r in j["schedule"])
b = j["best_seed"]
imp = 100 * (b["objective"] - j["objective"]) / b["objective"]
print(f'| {j["instance"]} | {ops} | {j["threads"]} | {j["seconds"]:.1f} | {b["name"]} {b["objective"]} '
      f'| {j["objective"]} | {imp:.3f} % | {j["lower_bound"]} | {100 * j["gap"]:.3f} % '
      f'| {j["generations"]} | {j["evaluations_per_second"]:.0f} | {j["time_to_best"]:.1f} |')
PY
done
echo
"$bin" search-validate datasets/ga/suite --time-limit 1 | tail -1
