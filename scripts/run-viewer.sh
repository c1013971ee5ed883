#!/usr/bin/env bash
# Installs what is missing, builds spanscope (Release, in build/) and opens the viewer on
# a real scope-profiler capture bundled in tests/data. Extra arguments are passed to the
# viewer instead of the bundled file.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" --target spanscope spanscope-cli
if [ $# -eq 0 ]; then
  set -- "$root/tests/data/scope-profiler/solver-2rank.h5"
fi
exec "$root/build/bin/spanscope" "$@"
