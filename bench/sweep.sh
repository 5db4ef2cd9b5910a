#!/usr/bin/env bash
# The sweep runner's own cost and its throughput.
#
# Overhead: 2000 cheap tasks (1f1b and gpipe on 1000 small instances, each a
# few hundred microseconds), one job; overhead per task = (wall - the sum of
# the tasks' own seconds) / tasks: spec expansion, task dispatch, rows to
# JSON, the durable appends (one write + fsync per batch of finished rows).
# Throughput: the bundled ga-quality spec (168 tasks: families, CBC, GA)
# with 1 and 2 jobs.
#
# usage: bench/sweep.sh [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/pipeopt}")
spec=$(realpath datasets/sweeps/ga-quality.json)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/overhead.json" <<'JSON'
{"name": "overhead", "instances": {"base": {"devices": 4, "microbatches": 8, "cost": {"F": 2, "B": 2, "W": 1}},
 "grid": {"microbatches": [4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23],
          "cost.F": [1,2,3,4,5,6,7,8,9,10], "cost.W": [1,2,3,4,5]}},
 "methods": [{"name": "1f1b", "family": "1f1b"}, {"name": "gpipe", "family": "gpipe"}]}
JSON
echo "| run | tasks | jobs | wall s | sum of task s | tasks/s | overhead per task |"
echo "|---|---|---|---|---|---|---|"
row() {  # name jobs spec
  rm -f "$tmp/r.jsonl"
  "$bin" sweep "$3" -o "$tmp/r.jsonl" --threads "$2" --no-progress --json > "$tmp/out.json"
  python3 - "$tmp/out.json" "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
n, jobs = j["ran"], int(sys.argv[3])
over = (j["seconds"] - j["task_seconds"] / jobs) / n * 1e3
print(f'| {sys.argv[2]} | {n} | {jobs} | {j["seconds"]:.2f} | {j["task_seconds"]:.2f} | {n / j["seconds"]:.1f} | {over:.3f} ms |')
PY
}
row overhead 1 "$tmp/overhead.json"
row ga-quality 1 "$spec"
row ga-quality 2 "$spec"
