#!/usr/bin/env bash
# Takes the window screenshots a person looks at after a change to the layout (never
# compared by a test): the file, comparison and live tabs at 1400x900 and at 1000x700,
# in tests/screenshots/ (or the folder given). Uses an existing build: BUILD=build-test
# scripts/screenshots.sh [DIR]. Fresh settings, so no remembered layout or theme applies.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
out=${1:-$root/tests/screenshots}
bin=$build/bin
data=$root/tests/data/scope-profiler
mkdir -p "$out"
settings=$(mktemp -d)
trap 'rm -rf "$settings"' EXIT
export XDG_CONFIG_HOME=$settings XDG_DATA_HOME=$settings/data QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
for size in 1400x900 1000x700; do
  "$bin/spanscope" --screenshot "$out/file-$size.png" --screenshot-size "$size" "$data/solver-2rank.h5"
  "$bin/spanscope" --compare --screenshot "$out/compare-$size.png" --screenshot-size "$size" \
    "$data/solver-1rank.h5" "$data/solver-2rank.h5" "$data/compat/schema-3.h5"
  if [ -x "$bin/spanscope-demo" ]; then
    # The demo 2.5 s into a 4 s run: the capture growing, the job still going.
    "$bin/spanscope" --screenshot "$out/live-$size.png" --screenshot-size "$size" --screenshot-after 2500 \
      --launch -- "$bin/spanscope-demo" --seconds 4
  else
    echo "screenshots: no spanscope-demo in $bin (NVTX headers missing): no live screenshots" >&2
  fi
done
ls -1 "$out"/{file,compare,live}-*.png 2>/dev/null
