#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test: first a normal
# warnings-as-errors build (build-test/), then the same suite under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/), then every fuzz target for a bounded time
# (scripts/fuzz.sh, build-fuzz/; SPANSCOPE_FUZZ_SECONDS per target, default 60). GUI tests
# run offscreen; no display needed.
#   scripts/test.sh            all three
#   scripts/test.sh --quick    the normal pass only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
jobs=$(nproc 2>/dev/null || echo 2)

# ccache, where installed, makes rebuilds of unchanged files free.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Files built with a precompiled header (cmake/precompiled_headers.cmake) are cached only so.
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros}
fi

run_pass() {
  local dir=$1; shift
  cmake -S "$root" -B "$root/$dir" -G Ninja "${launcher[@]}" "$@" >/dev/null
  cmake --build "$root/$dir" -j "$jobs"
  (cd "$root/$dir" && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$jobs")
}

# Line tables only (-g1): enough for a failing test's or a sanitizer's stack trace, and
# about a fifth less compile time than full debug information (-g) for the heavier files.
debug_lines=(-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
             -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
run_pass build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo "${debug_lines[@]}" -DSPANSCOPE_WERROR=ON
if [ "${1:-}" != "--quick" ]; then
  # Benchmarks are not part of the sanitized pass: they only time things.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_pass build-asan -DCMAKE_BUILD_TYPE=Debug -DSPANSCOPE_SANITIZE=ON -DSPANSCOPE_BUILD_BENCH=OFF
  "$root/scripts/fuzz.sh" "${SPANSCOPE_FUZZ_SECONDS:-60}"
fi
