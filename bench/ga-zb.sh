#!/usr/bin/env bash
# The GA on Zero Bubble's GPT instances (datasets/ga/zb-gpt: Table 9 costs,
# span objective, memory of p and 2p activations) and the two small
# instances where ZB's heuristic is known to miss the optimum
# (datasets/ga/zb-small). For each: the lower bound, 1f1b, zb-h1 and
# zb-auto (span and makespan), and the GA's result after T seconds.
#
# usage: bench/ga-zb.sh [-t SECONDS] [-j THREADS] [-o results.jsonl] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=30 threads=2 out=/dev/null
while getopts "t:j:o:" opt; do
  case $opt in t) limit=$OPTARG ;; j) threads=$OPTARG ;; o) out=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| instance | objective | lower bound | 1f1b | zb-h1 | zb-auto (makespan) | GA (makespan) | GA vs zb-auto | GA gap to bound | GA from | evals/s |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for f in datasets/ga/zb-small/*.json datasets/ga/zb-gpt/*.json; do
  "$bin" families "$f" --json > "$tmp/fam.json"
  "$bin" search "$f" --time-limit "$limit" --threads "$threads" --json > "$tmp/ga.json"
  python3 - "$tmp/fam.json" "$tmp/ga.json" "$out" <<'PY'
import json, sys
fam, ga, out = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
res = {r["family"]: r for r in fam["results"] if r.get("status") != "error"}
def obj(name):
    r = res.get(name)
    return f'{r["objective"]}' if r else "-"
za = res.get("zb-auto")
vs = f'{100 * (ga["objective"] - za["objective"]) / za["objective"]:+.3f} %' if za else "-"
print(f'| {ga["instance"]} | {ga["objective_name"]} | {ga["lower_bound"]} | {obj("1f1b")} | {obj("zb-h1")} '
      f'| {obj("zb-auto")} ({za["makespan"] if za else "-"}) | {ga["objective"]} ({ga["makespan"]}) | {vs} '
      f'| {100 * ga["gap"]:.2f} % | {ga["seed_from"]} | {ga["evaluations_per_second"]:.0f} |')
with open(out, "a") as fh:
    ga.pop("schedule", None)
    fh.write(json.dumps({"instance": ga["instance"], "families": fam["results"], "ga": ga}) + "\n")
PY
done
