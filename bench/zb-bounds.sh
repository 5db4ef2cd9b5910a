#!/usr/bin/env bash
# Zero Bubble's GPT instances (datasets/ga/zb-gpt, span objective): the
# lower bound and the argument that gave it, zb-h1, zb-auto and zb-warm, and the
# best schedule `solve` returns within T seconds (its GA start and exact
# search), each as a distance above the bound.
#
# usage: bench/zb-bounds.sh [-t SECONDS] [PIPEOPT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=10
while getopts "t:" opt; do
  case $opt in t) limit=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
bin=${1:-build/pipeopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| instance | lower bound | bound by | zb-h1 | zb-auto | zb-warm | solve %ss (above bound) | certified |\n' "$limit"
printf '|---|---|---|---|---|---|---|---|\n'
for f in datasets/ga/zb-gpt/*.json; do
  "$bin" bound "$f" --json > "$tmp/b.json"
  "$bin" families "$f" --json > "$tmp/fam.json"
  "$bin" solve "$f" --time-limit "$limit" --json --no-timeline > "$tmp/s.json" || true
  python3 - "$tmp/b.json" "$tmp/fam.json" "$tmp/s.json" <<'PY'
import json, sys
b, fam, s = (json.load(open(p)) for p in sys.argv[1:4])
res = {r["family"]: r for r in fam["results"] if r.get("status") != "error"}
lb = b["lower_bound"]
def pct(v):
    return f'{v} ({100 * (v - lb) / lb:.2f} %)'
def famv(name):
    r = res.get(name)
    return pct(r["objective"]) if r and r.get("objective") is not None else "-"
best = pct(s["objective"]) if "objective" in s else "error"
cert = "yes" if s.get("certified") else "no"
print(f'| {b["instance"]} | {lb} | {b["bound_by"]} | {famv("zb-h1")} | {famv("zb-auto")} | {famv("zb-warm")} | {best} | {cert} |')
PY
done
