#!/bin/bash
# What recomputation buys (issue 17): chains of P devices, M micro-batches,
# unit F, B = 2, comm 1, K activations per device (memory F = 2, limit 2K),
# solved without and with the instance key recompute {R: 1, keep: 0}.
# Prints one markdown row per (P, M, K, variant): solve's status, objective,
# bound, certificate and recomputed micro-batches, then search's objective.
# Then Zero Bubble's GPT 1.5B costs on DualPipeV's V placement (8 devices,
# 2 chunks of half a stage: F 9261, B 9043, W 4669, comm 601 us; memory
# per chunk F 2, B -1, W -1), m 24 and 32, at the peak memory of zb-v
# (1F1B's), v-half and v-min: the families valid there, and search without
# either key, with recompute {R: 9261 (the chunk's forward again), keep: 0}
# and with offload {O = L = 9261 (a copy as long as the chunk's forward:
# an assumption, no measured transfer time is published for these
# costs), keep: 0}.
# Usage: bench/recompute.sh [PIPEOPT] [SECONDS]
set -euo pipefail
bin=${1:-build/pipeopt}
t=${2:-20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "| P | M | K | recompute | solve status | objective | bound | certified by | recomputed | search ${t}s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for spec in "2 4 2" "3 4 2" "4 8 2" "4 8 3" "4 8 4" "8 16 4" "8 16 8"; do
	read -r P M K <<<"$spec"
	for rc in no yes; do
		f="$dir/i.json"
		extra=""
		[ "$rc" = yes ] && extra=',"recompute":{"R":1,"keep":0}'
		printf '{"name":"p%s-m%s-k%s-%s","devices":%s,"microbatches":%s,"cost":{"F":1,"B":2},"comm":1,"memory":{"F":2,"B":-2,"limit":%s}%s}\n' \
			"$P" "$M" "$K" "$rc" "$P" "$M" $((2 * K)) "$extra" >"$f"
		s=$("$bin" solve "$f" --time-limit "$t" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = sum(1 for row in d["schedule"] for e in row for o in (e if isinstance(e[0], list) else [e]) if len(o) == 4)
print(d["status"], d["objective"], d["bound"], d.get("certified_by") or "-", n, sep="|")')
		g=$("$bin" search "$f" --time-limit "$t" --json 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["objective"])')
		echo "| $P | $M | $K | $rc | ${s//|/ | } | $g |"
	done
done

echo
echo "| m | limit | zb-v | v-half | v-min | search ${t}s | search ${t}s, recompute | recomputed | search ${t}s, offload | offloaded |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for M in 24 32; do
	for lim in 32 20 14; do
		row="| $M | $lim |"
		for v in no yes off; do
			extra=""
			[ "$v" = yes ] && extra=',"recompute":{"R":9261,"keep":0}'
			[ "$v" = off ] && extra=',"offload":{"O":9261,"L":9261,"keep":0}'
			printf '{"name":"gpt-1.5b-v-m%s-l%s-%s","devices":8,"microbatches":%s,"chunks":2,"placement":"v","cost":{"F":9261,"B":9043,"W":4669},"comm":601,"memory":{"F":2,"B":-1,"W":-1,"limit":%s}%s}\n' \
				"$M" "$lim" "$v" "$M" "$lim" "$extra" >"$dir/g-$v.json"
		done
		for f in zb-v v-half v-min; do
			v=$("$bin" simulate "$dir/g-no.json" --family "$f" --json --no-timeline 2>/dev/null |
			    python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan"])' 2>/dev/null || echo -)
			row="$row $v |"
		done
		for v in no yes off; do
			r=$("$bin" search "$dir/g-$v.json" --time-limit "$t" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = sum(1 for row in d["schedule"] for e in row for o in (e if isinstance(e[0], list) else [e]) if len(o) == 4)
print(d["makespan"], d.get("offloaded", n))')
			row="$row ${r% *} |"
			[ "$v" = no ] || row="$row ${r#* } |"
		done
		echo "$row"
	done
done
