#!/usr/bin/env bash
# Installs what is missing, builds spanscope (Release, in build/), records the bundled demo
# workload live under the collector (spanscope-run, NVTX injection) and opens the viewer on
# that capture. Where the NVTX 3 headers (CUDA toolkit) are missing, the collector is not
# built: the viewer then opens a real scope-profiler file from tests/data instead.
# Extra arguments are passed to the viewer instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=(spanscope spanscope-cli)
collector=0
if cmake --build "$root/build" --target help | grep -q "spanscope-demo"; then
  targets+=(spanscope-run spanscope-collector spanscope-demo)
  collector=1
fi
cmake --build "$root/build" --target "${targets[@]}"
if [ $# -eq 0 ]; then
  if [ "$collector" = 1 ]; then
    capture="$root/build/demo-capture.h5"
    echo "Recording the demo workload (2 s) under the collector..."
    "$root/build/bin/spanscope-run" --output "$capture" -- "$root/build/bin/spanscope-demo" --quiet
    set -- "$capture"
  else
    echo "NVTX headers not found: opening a bundled scope-profiler file instead of a live recording."
    set -- "$root/tests/data/scope-profiler/solver-2rank.h5"
  fi
fi
exec "$root/build/bin/spanscope" "$@"
