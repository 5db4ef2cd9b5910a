#!/bin/bash
# What offload buys beside recomputation (issue 17): chains of P devices, M
# micro-batches, unit F, B = 2, comm 1, K activations per device (memory F
# = 2, limit 2K), solved with neither key, with recompute {R: 1, keep: 0},
# and with offload {O = L = C, keep: 0} for C = 1 and 2 (a copy as long
# as a forward, and twice that). Prints one markdown row per (P, M, K,
# variant): solve's status, objective, bound, certificate and the
# recomputed or offloaded micro-batch stages, then search's objective.
# Usage: bench/offload.sh [PIPEOPT] [SECONDS]
set -euo pipefail
bin=${1:-build/pipeopt}
t=${2:-10}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "| P | M | K | variant | solve status | objective | bound | certified by | recomputed / offloaded | search ${t}s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for spec in "2 4 1" "3 4 2" "4 8 2" "4 8 3" "8 16 4"; do
	read -r P M K <<<"$spec"
	for v in none recompute offload-1 offload-2; do
		f="$dir/i.json"
		case $v in
		none) extra="" ;;
		recompute) extra=',"recompute":{"R":1,"keep":0}' ;;
		offload-*) c=${v#offload-}; extra=",\"offload\":{\"O\":$c,\"L\":$c,\"keep\":0}" ;;
		esac
		printf '{"name":"p%s-m%s-k%s-%s","devices":%s,"microbatches":%s,"cost":{"F":1,"B":2},"comm":1,"memory":{"F":2,"B":-2,"limit":%s}%s}\n' \
			"$P" "$M" "$K" "$v" "$P" "$M" $((2 * K)) "$extra" >"$f"
		s=$("$bin" solve "$f" --time-limit "$t" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = d.get("recomputed", d.get("offloaded", 0))
print(d["status"], d["objective"], d["bound"], d.get("certified_by") or "-", n, sep="|")' || echo "error|-|-|-|-")
		g=$("$bin" search "$f" --time-limit "$t" --json 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["objective"])' || echo -)
		echo "| $P | $M | $K | $v | ${s//|/ | } | $g |"
	done
done
