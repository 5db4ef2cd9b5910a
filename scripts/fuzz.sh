#!/usr/bin/env bash
# Fuzz every reader with libFuzzer under ASan and UBSan (tests/fuzz/README.md):
# build the harnesses with clang in build-fuzz, seed a fresh corpus for each
# from datasets/ (and tests/golden, tests/fuzz/seeds), run each for SECONDS,
# print one line per harness (executions, coverage, corpus, findings) and fail
# if any harness found a crash, a leak, undefined behaviour, a broken
# round trip, a timeout or an out-of-memory. Findings are saved as
# build-fuzz/findings/HARNESS/{crash,leak,timeout,oom}-*; replay one with
# build-fuzz/HARNESS FILE.
#
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS ...]   (default: 30 s, all seven;
# a harness is named without its fuzz_ prefix: instance, schedule, torch_csv,
# lang, graph, costs, spec). FUZZ_BUILD=DIR builds elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
[[ $seconds =~ ^[0-9]+$ && $seconds -ge 1 ]] || {
	echo "usage: scripts/fuzz.sh [SECONDS] [HARNESS ...]" >&2
	exit 2
}
shift $(($# ? 1 : 0))
all=(instance schedule torch_csv lang graph costs spec)
harnesses=("${@:-${all[@]}}")
build=${FUZZ_BUILD:-build-fuzz}
jobs=$(nproc)

# The seeds of each harness: files, globbed from the source tree.
seeds() {
	case $1 in
	instance)
		echo datasets/instances/*.json datasets/instances/family-table/*.json \
			datasets/bad/*.json datasets/ga/zb-small/*.json datasets/ga/scale/*.json
		for f in datasets/ga/suite/*.json; do [[ $f == *.cert.json ]] || echo "$f"; done ;;
	schedule) echo datasets/ga/suite/*.cert.json tests/fuzz/seeds/schedule-*.json ;;
	torch_csv) echo tests/golden/*.csv ;;
	lang) echo datasets/schedules/*.sched ;;
	graph) echo datasets/graphs/*.json ;;
	costs) echo tests/fuzz/seeds/costs-*.json datasets/graphs/candle-uno-b2-a100.json ;;
	spec) echo datasets/sweeps/*.json ;;
	*) return 1 ;;
	esac
}
dict() {
	case $1 in
	lang) echo tests/fuzz/lang.dict ;;
	torch_csv) echo tests/fuzz/torch_csv.dict ;;
	*) echo tests/fuzz/json.dict ;;
	esac
}
for h in "${harnesses[@]}"; do
	seeds "$h" >/dev/null || { echo "fuzz: unknown harness '$h' (one of: ${all[*]})" >&2; exit 2; }
done

command -v clang >/dev/null || { echo "fuzz: clang not found (scripts/deps.sh installs it)" >&2; exit 2; }
echo "== fuzz: build the harnesses (clang, -fsanitize=fuzzer,address,undefined) in $build"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DPIPEOPT_FUZZ=ON -DWITH_CUDA=OFF -DWITH_MPI=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target fuzz >/dev/null

# Leaks, UB and a broken promise all stop the run; the fuzzer's own options
# below set the limits. Nothing reads stdin.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

work=$(mktemp -d "${TMPDIR:-/tmp}/pipeopt-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/logs"
echo "== fuzz: $seconds s per harness"
printf '%-16s %8s %12s %8s %8s %9s  %s\n' harness seconds executions cov corpus findings status
failed=0
for h in "${harnesses[@]}"; do
	corpus=$work/$h findings=$build/findings/$h log=$build/logs/fuzz_$h.log
	mkdir -p "$corpus" "$findings"
	rm -f "$findings"/crash-* "$findings"/leak-* "$findings"/timeout-* "$findings"/oom-*
	# shellcheck disable=SC2046
	cp $(seeds "$h") "$corpus"/
	rc=0
	"$build/fuzz_$h" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 \
		-dict="$(dict "$h")" -print_final_stats=1 -artifact_prefix="$findings/" \
		"$corpus" </dev/null >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
	found=$(find "$findings" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' \
		-o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	status=ok
	if ((rc != 0 || found != 0)); then
		status="FAILED (exit $rc; log $log)"
		failed=$((failed + 1))
	fi
	printf '%-16s %8s %12s %8s %8s %9s  %s\n' "fuzz_$h" "$seconds" "${execs:-?}" \
		"${cov:-?}" "${corp:-?}" "$found" "$status"
	if [[ $status != ok ]]; then
		grep -E 'ERROR|SUMMARY|runtime error|fuzz: |==[0-9]+==' "$log" | head -5 | sed 's/^/    /' >&2
		find "$findings" -maxdepth 1 -type f | sed "s/^/    saved: /" >&2
	fi
done
if ((failed)); then
	echo "fuzz: $failed of ${#harnesses[@]} harnesses found something (build-fuzz/findings)" >&2
	exit 1
fi
echo "fuzz: ok: ${#harnesses[@]} harnesses, $seconds s each, no findings"
