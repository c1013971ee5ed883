#!/usr/bin/env bash
# Installs what is missing, builds spanscope (Release, in build/) and starts the viewer on
# the bundled demo workload, launched under the collector (NVTX injection): its capture
# grows live in the window for ten seconds (File > Save As keeps it). Where the NVTX 3
# headers (CUDA toolkit) are missing, the collector is not built: the viewer then opens a
# real scope-profiler file from tests/data instead.
# Extra arguments are passed to the viewer instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
# ccache, where installed, makes rebuilds of unchanged files free (as in scripts/test.sh).
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Files built with a precompiled header (cmake/precompiled_headers.cmake) are cached only so.
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros}
fi
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
targets=(spanscope spanscope-cli)
collector=0
if cmake --build "$root/build" --target help | grep -q "spanscope-demo"; then
  targets+=(spanscope-run spanscope-collector spanscope-demo)
  collector=1
fi
cmake --build "$root/build" --target "${targets[@]}"
if [ $# -eq 0 ]; then
  if [ "$collector" = 1 ]; then
    echo "Launching the demo workload (10 s) under the collector; watch it grow in the viewer."
    set -- --launch -- "$root/build/bin/spanscope-demo" --seconds 10
  else
    echo "NVTX headers not found: opening a bundled scope-profiler file instead of a live capture."
    set -- "$root/tests/data/scope-profiler/solver-2rank.h5"
  fi
fi
exec "$root/build/bin/spanscope" "$@"
