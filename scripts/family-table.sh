#!/usr/bin/env bash
# Every family on the standard instances of datasets/instances/family-table
# (p=4, m=8 and p=8, m=16; F = B = W, and Zero Bubble's profiled 1.5B GPT
# costs with comm 601 us): makespan, span and the highest peak memory
# (units: a full stage's activation = 4, a chunk's = 2). Prints markdown.
# Usage: scripts/family-table.sh [path/to/pipeopt]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/pipeopt}
printf '| instance | family | makespan | span | bubble | max peak | lower bound |\n|---|---|---|---|---|---|---|\n'
for f in datasets/instances/family-table/*.json; do
  "$bin" families "$f" --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
for r in j["results"]:
    if r["status"] == "error":
        continue
    print("| %s | %s | %d | %d | %.2f %% | %d | %d |" % (j["instance"], r["family"], r["makespan"], r["span"],
          100 * r["bubble_ratio"], max(r["peak_memory"]), j["lower_bound"]))
'
done
