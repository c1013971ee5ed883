#!/usr/bin/env bash
# Rewrites the seed inputs in tests/data/fuzz/ (inputs found by fuzzing that once crashed,
# named regression-*, are kept, and so are compat-*: streams of older protocol versions,
# such as compat-v4-basic-cut, basic's first 24 KiB as version 4 wrote it). Needs a build
# with the collector and the tests:
#   fuzz/make_seeds.sh [BUILD_DIR]      (default build-test)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build-test}" && pwd)
data=$root/tests/data/fuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# wire_stream: the target's 7-byte prefix (1 or 2 streams, 4,096-byte reads, no budget, not
# detached, process 2 from the middle), then real collector streams of nvtx_workload.
rm -f "$data"/wire_stream/seed-*
mkdir -p "$data/wire_stream"
record() { # NAME ARGS...: one stream, or the first stream of a job that has several
  local name=$1; shift
  mkdir -p "$work/$name"
  NVTX_INJECTION64_PATH=$build/lib/libspanscope-collector.so SPANSCOPE_OUTPUT_DIR=$work/$name \
    "$build/bin/nvtx_workload" "$@" >/dev/null
}
record open open
record phased phased 1 "$work"
record twolibs twolibs
record fork forkworkers 1
record basic basic
one() { printf '\x00\x0f\xff\x00\x00\x80\x00'; } # (a shell variable cannot hold NUL)
two() { printf '\x01\x0f\xff\x00\x00\x80\x00'; }
for name in open phased twolibs; do
  { one; cat "$work/$name"/*.sps; } > "$data/wire_stream/seed-$name"
done
# The parent and its forked worker as two processes; basic's first 24 KiB, cut mid-frame.
{ two; cat $(ls -S "$work/fork"/*.sps | tail -1) $(ls -S "$work/fork"/*.sps | head -1) | head -c 20000; } \
  > "$data/wire_stream/seed-forked-pair"
{ one; head -c 24576 "$work/basic"/*.sps; } > "$data/wire_stream/seed-basic-cut"
# Allocation records: the allocation workload with libspanscope-alloc preloaded.
mkdir -p "$work/alloc"
LD_PRELOAD="$build/lib/libspanscope-alloc.so $build/lib/libspanscope-collector.so" \
  SPANSCOPE_START_AT_LOAD=1 NVTX_INJECTION64_PATH=$build/lib/libspanscope-collector.so \
  SPANSCOPE_OUTPUT_DIR=$work/alloc "$build/bin/alloc_nvtx_workload"
{ one; cat "$work/alloc"/*.sps; } > "$data/wire_stream/seed-alloc"
# CUDA records (protocol 4): the recording tst_cuda_records builds from CUPTI structs.
if [ -x "$build/bin/tst_cuda_records" ]; then
  SPANSCOPE_KEEP_SPS=$work/cuda.sps QT_QPA_PLATFORM=offscreen "$build/bin/tst_cuda_records" \
    savedAndRawCapturesReadBackTheSame >/dev/null
  { one; cat "$work/cuda.sps"; } > "$data/wire_stream/seed-cuda"
fi

# chrome_trace: the small Kineto traces of tests/data/kineto, inflated, and one gzipped.
rm -f "$data"/chrome_trace/seed-*
mkdir -p "$data/chrome_trace"
for name in tiny-two-streams cpu-only mi250-rocm; do
  gzip -dc "$root/tests/data/kineto/$name.json.gz" > "$data/chrome_trace/seed-$name.json"
done
cp "$root/tests/data/kineto/tiny-two-streams.json.gz" "$data/chrome_trace/seed-gzip.json.gz"

# region_file and capture_file: inputs of the structure-aware generator (fuzz/hostile_h5.cpp),
# fixed pseudo-random bytes of a few lengths; the fuzzer grows them.
for target in region_file capture_file; do
  rm -f "$data/$target"/seed-*
  mkdir -p "$data/$target"
  for n in 1 2 3 4 5 6; do
    python3 -c "import random,sys; r=random.Random($n); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(64*$n*$n)))" \
      > "$data/$target/seed-$n"
  done
done
# capture_file: a byte repeated makes the generator's same (mostly plausible) choice
# throughout, so the file reads far enough for its GPU and allocation tables to be taken.
for spec in 3:3200 19:3200 39:1600; do
  python3 -c "import sys; sys.stdout.buffer.write(bytes([${spec%%:*}]) * ${spec##*:})" \
    > "$data/capture_file/seed-plausible-${spec%%:*}"
done
ls -l "$data"/*
