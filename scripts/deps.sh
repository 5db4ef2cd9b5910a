#!/usr/bin/env bash
# Install pipeopt's build and test dependencies on Debian 12 (run as root).
# Idempotent: does nothing when every package is already installed.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libjansson-dev                       # JSON (reports line and column)
  libglpk-dev glpk-utils               # GLPK and glpsol
  coinor-libcbc-dev coinor-cbc         # CBC C interface and the cbc CLI
  libopenblas-dev                      # CPU profiler and executor
  libcmocka-dev                        # unit tests
  libopenmpi-dev openmpi-bin           # sweeps and executor across hosts
  clang libclang-rt-14-dev             # fuzzing: libFuzzer, ASan, UBSan (scripts/fuzz.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
