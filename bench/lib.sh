# Helpers shared by the bench scripts (sourced, not run).

# A temporary folder in $dir, removed when the script exits.
bench_tmpdir() {
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
}

# json_field KEY... < JSON: the value at that key path, or - when the input
# is not JSON or has no such key. The key "peak" is the largest of
# "peak_memory".
json_field() {
  python3 -c 'import json, sys
try:
    d = json.load(sys.stdin)
    for k in sys.argv[1:]:
        d = max(d["peak_memory"]) if k == "peak" else d[k]
    print(d)
except Exception:
    print("-")' "$@"
}
