#!/usr/bin/env bash
# No program links a MILP solver it does not use: of the programs built in
# BUILD, only those that may use the solvers/ layer (it, and the layers
# above it) may have GLPK or CBC on their link line. Reads CMake's link.txt
# files (Makefile generator). usage: scripts/links.sh BUILD
set -euo pipefail
build=${1:?usage: scripts/links.sh BUILD}
# programs below solvers/: the core, graph, ops, ga, profile, exec and their tests
below=(bench_sim bench_ga test_sim test_schedule test_instance test_family test_lang
       test_bound test_torch_csv test_graph test_ops test_ga test_profile test_exec
       test_options)
bad=0 checked=0
for t in "${below[@]}"; do
  f="$build/CMakeFiles/$t.dir/link.txt"
  [ -f "$f" ] || continue
  checked=$((checked + 1))
  if grep -Eq 'glpk|[Cc]bc' "$f"; then
    echo "links: $t links a MILP solver (GLPK or CBC) it does not use" >&2
    bad=1
  fi
done
[ "$checked" -gt 0 ] || { echo "links: no link.txt under $build (not a Makefile build?)" >&2; exit 1; }
[ "$bad" -eq 0 ] && echo "links: ok: $checked programs below solvers/ link no MILP solver"
exit $bad
