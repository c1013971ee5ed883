#!/usr/bin/env bash
# Builds spanscope's libFuzzer targets (fuzz/) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz/ and runs each one for a bounded time, starting
# from its inputs in tests/data/fuzz/<target>/ and the corpus kept in build-fuzz/corpus/
# from earlier runs. Fails on any crash, leak, sanitizer report or timeout, and says where
# the input that caused it is. Prints runs, executions per second and corpus size.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]       default 60 (4 targets, one per core at a time:
#                                              2 minutes on two cores)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
jobs=$(nproc 2>/dev/null || echo 2)
build=$root/build-fuzz

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Only the targets are built: no viewer, tests or benchmarks; line tables only (-g1), which
# is what a finding's stack trace needs.
cmake -S "$root" -B "$build" -G Ninja "${launcher[@]}" -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DSPANSCOPE_FUZZ=ON \
  -DSPANSCOPE_BUILD_GUI=OFF -DSPANSCOPE_BUILD_TESTS=OFF -DSPANSCOPE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target fuzzers

# One target: runs it and writes its line (or its failure, with the end of its log) to
# $build/fuzz-<target>.result; the status says whether it found anything.
fuzz_one() {
  local target=$1
  local corpus=$build/corpus/$target
  local artifacts=$build/findings/$target
  local log=$build/fuzz-$target.log
  local result=$build/fuzz-$target.result
  mkdir -p "$corpus" "$artifacts"
  # New inputs go to the first folder (kept); the seeds are only read. The timeout is per
  # input (seconds); the memory limit is per process (MiB).
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     "$build/bin/fuzz_$target" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=3072 \
       -print_final_stats=1 -artifact_prefix="$artifacts/" \
       "$corpus" "$root/tests/data/fuzz/$target" >"$log" 2>&1; then
    local runs rate inputs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    inputs=$(find "$corpus" "$root/tests/data/fuzz/$target" -type f | wc -l)
    echo "fuzz_$target: ${runs:-?} runs in ${seconds} s, ${rate:-?} exec/s, corpus $inputs inputs, no finding" >"$result"
    return 0
  fi
  {
    echo "fuzz_$target FAILED; the end of its log ($log):"
    tail -n 60 "$log"
    echo "The input is in $artifacts/. Once fixed, keep it as"
    echo "tests/data/fuzz/$target/regression-<what> so fuzz_replay checks it in every build."
  } >"$result"
  return 1
}

# The targets run side by side, one per core (each is one process): each still gets its
# whole time, and the pass takes half as long on two cores.
targets=(wire_stream chrome_trace region_file capture_file)
failed=0
for ((first = 0; first < ${#targets[@]}; first += jobs)); do
  pids=()
  for target in "${targets[@]:first:jobs}"; do
    fuzz_one "$target" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
  done
done
for target in "${targets[@]}"; do
  cat "$build/fuzz-$target.result"
done
exit "$failed"
