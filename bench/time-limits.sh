#!/usr/bin/env bash
# Each command's wall time against its --time-limit: the contract is the
# whole command (seeding and every sub-solve inside it) within
# max(1 s, 10 %) of the limit (common/stop.h). Prints a markdown table.
#
# usage: bench/time-limits.sh [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/pipeopt}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir/hard.json" <<'PY'
import json, sys
json.dump({"name": "p8-m24-fused-p-c1", "devices": 8, "microbatches": 24,
           "cost": {"F": 1, "B": 2}, "comm": 1,
           "memory": {"F": 2, "B": -2, "limit": 16}}, open(sys.argv[1], "w"))
PY
printf '| command | limit (s) | wall (s) | allowed (s) | within | stopped by |\n|---|---|---|---|---|---|\n'
row() {   # label limit command...
  local label=$1 limit=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  "$@" --time-limit "$limit" --json > "$dir/out.json" 2>/dev/null || true
  t1=$(date +%s.%N)
  python3 - "$label" "$limit" "$t0" "$t1" "$dir/out.json" <<'PY'
import json, sys
label, limit, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
out = open(sys.argv[5]).read()
wall = t1 - t0
allowed = limit + max(1.0, 0.1 * limit)
try:
    j = json.loads(out)
    by = j.get("stopped_by") or j.get("status") or "-"
except Exception:
    by = "error"
print("| %s | %g | %.2f | %.2f | %s | %s |" % (label, limit, wall, allowed, "yes" if wall <= allowed else "**no**", by))
PY
}
row "search zb-gpt-1.5b-p8-m24-2p" 0.5 "$bin" search datasets/ga/zb-gpt/zb-gpt-1.5b-p8-m24-2p.json
row "search zb-gpt-6.2b-p8-m64-2p" 0.5 "$bin" search datasets/ga/zb-gpt/zb-gpt-6.2b-p8-m64-2p.json
row "search scale-p64-m1024" 2 "$bin" search datasets/ga/scale/scale-p64-m1024-random-comm300-1p.json
row "solve p8 m24 fused p-memory comm 1" 5 "$bin" solve "$dir/hard.json"
row "solve p8 m24 fused (glpk)" 5 "$bin" solve "$dir/hard.json" --solver glpk
row "partition --method ilp candle-uno 8 devices" 10 "$bin" partition datasets/graphs/candle-uno-a100.json --devices 8 --method ilp
row "plan candle-uno 8 devices" 5 "$bin" plan datasets/graphs/candle-uno-a100.json --devices 8
row "profile --device cpu candle-uno" 2 "$bin" profile datasets/graphs/candle-uno-a100.json --device cpu
row "plan dlrm 32 devices" 2 "$bin" plan datasets/graphs/dlrm-a100.json --devices 32
row "partition (search) dlrm 32 devices" 1 "$bin" partition datasets/graphs/dlrm-a100.json --devices 32
