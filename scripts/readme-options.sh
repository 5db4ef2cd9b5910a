#!/usr/bin/env bash
# Regenerate README.md's option tables (between the options:begin and
# options:end markers) from the method table: `pipeopt help --options`.
# usage: scripts/readme-options.sh [PIPEOPT]   (default build/pipeopt)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/pipeopt}
tables=$(mktemp)
trap 'rm -f "$tables" README.md.tmp' EXIT
"$bin" help --options > "$tables"
awk -v f="$tables" '
  /<!-- options:begin -->/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
  /<!-- options:end -->/ { skip = 0 }
  !skip { print }' README.md > README.md.tmp
mv README.md.tmp README.md
echo "README.md: option tables regenerated"
