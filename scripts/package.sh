#!/usr/bin/env bash
# Builds spanscope's Debian package: installs what is missing, makes a Release build in
# build-package/ (no tests or benchmarks) and runs CPack. Prints the .deb's path; install
# it with `sudo apt install ./spanscope_<version>_amd64.deb`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Files built with a precompiled header (cmake/precompiled_headers.cmake) are cached only so.
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros}
fi
build="$root/build-package"
cmake -S "$root" -B "$build" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DSPANSCOPE_BUILD_TESTS=OFF -DSPANSCOPE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
(cd "$build" && cpack -G DEB >/dev/null)
ls "$build"/spanscope_*.deb
