#!/usr/bin/env bash
# Window bounds (solvers/relax.h) against the closed forms of sched/bound.c
# on the bench grid's tight-memory classes (p activations, comm 1): per
# class the closed-form bound, the window bound after `bound --windows S`
# (and the window that proved it), the best schedule and bound of
# `solve --time-limit T`, and whether solve certified it. Prints a
# markdown table.
#
# usage: bench/relax.sh [-w WINDOW_SECONDS] [-t SOLVE_SECONDS] [-c "CLASS;CLASS"] [PIPEOPT]
#   a CLASS is grid_instance.py's arguments: "P M fused|split p COMM uniform|uneven"
set -euo pipefail
cd "$(dirname "$0")/.."
wsec=10 tsec=30
classes="3 6 fused p 1 uniform;3 12 fused p 1 uniform;4 12 split p 1 uniform;4 16 split p 1 uniform;4 24 split p 1 uniform;4 32 split p 1 uniform;8 12 fused p 1 uniform;8 16 fused p 1 uniform;8 16 fused p 1 uneven;8 24 fused p 1 uniform;8 32 fused p 1 uniform;8 16 split p 1 uniform;8 32 split p 1 uniform"
while getopts "w:t:c:" opt; do
  case $opt in
    w) wsec=$OPTARG ;; t) tsec=$OPTARG ;; c) classes=$OPTARG ;; *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '| class | closed form | window bound (devices; finished/windows; s) | solve %s s: objective/bound | certified by |\n' "$tsec"
printf '|---|---|---|---|---|\n'
IFS=';' read -ra list <<< "$classes"
for c in "${list[@]}"; do
  f="$dir/i.json"
  # shellcheck disable=SC2086
  python3 bench/grid_instance.py $c > "$f"
  b=$("$bin" bound "$f" --windows "$wsec" --json)
  s=$("$bin" solve "$f" --time-limit "$tsec" --json 2>/dev/null || echo '{}')
  python3 - "$c" "$b" "$s" <<'PY'
import json, sys
c, b, s = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
bs = b["bounds"]
closed = max(v for k, v in bs.items() if k in ("critical_path", "device", "memory", "round_trip", "warmup"))
w = bs["window"]
win = "-" if w["value"] is None else "%d (%d-%d)" % (w["value"], w["devices"][0], w["devices"][1])
sol = "%s/%s" % (s.get("objective", "-"), s.get("bound", "-"))
cert = s.get("certificate", {}).get("certified_by", "-")
print("| %s | %d | %s; %d/%d; %.2f | %s | %s |" % (c, closed, win, w["finished"], w["windows"], w["seconds"], sol, cert))
PY
done
