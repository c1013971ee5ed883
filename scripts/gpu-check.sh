#!/usr/bin/env bash
# gpu-check.sh: records a CUDA workload under spanscope's collector on a GPU machine and
# checks the recording against what the workload itself launched and measured
# (docs/gpu-check.md).
#
#   scripts/gpu-check.sh record OUTDIR   build the collector and the workload (CMake, nvcc,
#                                        a C++ compiler; no Qt, no HDF5), record, measure
#                                        the collector's launch overhead
#   scripts/gpu-check.sh check OUTDIR    compare spanscope-cli's summary of the recording
#                                        with the workload's own figures (full build)
#   scripts/gpu-check.sh OUTDIR          both
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO
readonly ROUNDS="${GPU_CHECK_ROUNDS:-5}"
readonly LAUNCHES="${GPU_CHECK_LAUNCHES:-100000}"
readonly TOLERANCE_PCT="${GPU_CHECK_TOLERANCE_PCT:-5}"
readonly OVERHEAD_GOAL="1.10"

usage() {
    cat <<'EOF'
Usage: scripts/gpu-check.sh [record|check] OUTDIR [options]

Records a CUDA workload under spanscope's collector and checks the recording against what
the workload launched and measured itself (docs/gpu-check.md).

  record OUTDIR   needs CMake, the CUDA toolkit (nvcc 12 or newer), a C++ compiler and an
                  NVIDIA GPU with its driver; no Qt, no HDF5. Builds collector/ and the
                  workload (tests/gpu) into OUTDIR/build (-DSPANSCOPE_COLLECTOR_ONLY=ON),
                  runs the workload plain and under the collector (NVTX_INJECTION64_PATH
                  and CUDA_INJECTION64_PATH, as spanscope-run sets them), and measures
                  the collector's cost per kernel launch. Writes to OUTDIR:
                    gpu-workload.sps          the recording
                    gpu-workload.json         what the recorded run launched and measured
                    gpu-workload-plain.json   the same for the run without the collector
                    overhead.txt, .json       ns per launch each way and their ratio
                    build.log, record.log
  check OUTDIR    needs the full build (spanscope-cli) and python3. Summarizes
                  OUTDIR/gpu-workload.sps with spanscope-cli and compares it with
                  OUTDIR/gpu-workload.json; prints one line per check, "FAIL figure:
                  expected X, got Y" for each that fails. Copy OUTDIR from the GPU machine
                  first if that one has no full build.
  OUTDIR          record, then check.

Options:
  --cli PATH       (check) the spanscope-cli to use; default: $SPANSCOPE_CLI, then
                   spanscope-cli on PATH, then build/bin/spanscope-cli of this checkout
  --summary FILE   (check) compare this `spanscope-cli summary --format json` output
                   instead of summarizing OUTDIR/gpu-workload.sps
  -h, --help       this text

Environment: GPU_CHECK_ROUNDS (overhead rounds, default 5), GPU_CHECK_LAUNCHES (launches
per round, default 100000), GPU_CHECK_TOLERANCE_PCT (GPU time tolerance, default 5),
GPU_CHECK_JOBS (build jobs, default: all cores), CUDACXX or CUDA_HOME (which nvcc).

Exit status: 0 every check passed (record: recorded); 1 some check failed; 2 bad usage;
3 something needed is missing or failed to build or run (no driver, no nvcc, no
spanscope-cli, the workload failed).
EOF
}

say() { echo "gpu-check: $*"; }
die() {
    echo "gpu-check: $*" >&2
    exit 3
}
usage_error() {
    echo "gpu-check: $*" >&2
    echo "Try 'scripts/gpu-check.sh --help'." >&2
    exit 2
}

# ---------------------------------------------------------------------------------------
# Arguments

MODE=all
OUTDIR=
CLI_ARG=
SUMMARY_ARG=
if [[ $# -gt 0 ]]; then
    case "$1" in
    record | check) MODE="$1"; shift ;;
    esac
fi
while [[ $# -gt 0 ]]; do
    case "$1" in
    -h | --help) usage; exit 0 ;;
    --cli) [[ $# -ge 2 ]] || usage_error "--cli needs a path"; CLI_ARG="$2"; shift 2 ;;
    --summary) [[ $# -ge 2 ]] || usage_error "--summary needs a file"; SUMMARY_ARG="$2"; shift 2 ;;
    -*) usage_error "unknown option '$1'" ;;
    *)
        [[ -z "$OUTDIR" ]] || usage_error "one OUTDIR only ('$OUTDIR', then '$1')"
        OUTDIR="$1"; shift ;;
    esac
done
[[ -n "$OUTDIR" ]] || usage_error "no OUTDIR given"
[[ "$MODE" == check || (-z "$CLI_ARG" && -z "$SUMMARY_ARG") ]] ||
    usage_error "--cli and --summary are options of check"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || usage_error "GPU_CHECK_ROUNDS must be a positive number, not '$ROUNDS'"
[[ "$LAUNCHES" =~ ^[1-9][0-9]*$ ]] || usage_error "GPU_CHECK_LAUNCHES must be a positive number, not '$LAUNCHES'"
[[ "$TOLERANCE_PCT" =~ ^[0-9]+([.][0-9]+)?$ ]] ||
    usage_error "GPU_CHECK_TOLERANCE_PCT must be a number, not '$TOLERANCE_PCT'"

# Runs with a time limit where coreutils' timeout exists.
limited() {
    local seconds="$1"
    shift
    if command -v timeout >/dev/null 2>&1; then
        timeout --kill-after=10 "$seconds" "$@"
    else
        "$@"
    fi
}

# The collector's environment variables, removed: the plain runs run without, and the
# recorded ones get exactly what this script sets.
readonly CLEAN_ENV=(env -u NVTX_INJECTION64_PATH -u CUDA_INJECTION64_PATH -u SPANSCOPE_OUTPUT
    -u SPANSCOPE_OUTPUT_DIR -u SPANSCOPE_SOCKET -u LD_PRELOAD)

# ---------------------------------------------------------------------------------------
# record

find_nvcc() {
    local candidate
    for candidate in "${CUDACXX:-}" "$(command -v nvcc 2>/dev/null || true)" \
        "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" /usr/local/cuda/bin/nvcc; do
        if [[ -n "$candidate" && -x "$candidate" ]]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

check_driver() {
    local out
    if ! command -v nvidia-smi >/dev/null 2>&1; then
        if [[ -r /proc/driver/nvidia/version ]]; then
            say "nvidia-smi not found; driver: $(head -n 1 /proc/driver/nvidia/version)"
            return 0
        fi
        die "no NVIDIA driver: nvidia-smi is not installed and /proc/driver/nvidia/version does not exist. record needs a machine with an NVIDIA GPU and its driver (check runs anywhere: copy OUTDIR to it)"
    fi
    if ! out="$(nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1)"; then
        die "no NVIDIA driver: nvidia-smi failed: $(echo "$out" | head -n 3)"
    fi
    [[ -n "$out" ]] || die "no NVIDIA GPU: nvidia-smi lists none"
    while IFS= read -r line; do say "GPU $line"; done <<<"$out"
}

# Median of the numbers on stdin.
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# One overhead round: prints the run's ns per launch.
overhead_run() {
    local how="$1" out
    local status=0
    if [[ "$how" == plain ]]; then
        out="$(limited 60 "${CLEAN_ENV[@]}" "$WORKLOAD" --overhead "$LAUNCHES" 2>>"$LOG")" || status=$?
    elif [[ "$how" == cupti ]]; then
        # The activity kinds the collector enables, with its timestamp callback.
        out="$(limited 60 "${CLEAN_ENV[@]}" "$FLOOR" "$LAUNCHES" krdsmot 2>>"$LOG")" || status=$?
    else
        out="$(limited 60 "${CLEAN_ENV[@]}" NVTX_INJECTION64_PATH="$COLLECTOR" \
            CUDA_INJECTION64_PATH="$COLLECTOR" SPANSCOPE_OUTPUT="$OUTDIR/overhead.sps" \
            "$WORKLOAD" --overhead "$LAUNCHES" 2>>"$LOG")" || status=$?
    fi
    ((status != 124)) || die "an overhead run ($how) ran past 60 s"
    ((status == 0)) || die "an overhead run ($how) failed with status $status (see $LOG)"
    echo "$how: $out" >>"$LOG"
    local ns="${out##*ns_per_launch=}"
    ns="${ns%% *}"
    [[ "$ns" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "the overhead run printed no ns_per_launch: '$out'"
    echo "$ns"
}

record() {
    local started=$SECONDS
    mkdir -p "$OUTDIR"
    LOG="$OUTDIR/record.log"
    : >"$LOG"

    # Everything needed, before anything takes time; the GPU first.
    check_driver
    command -v cmake >/dev/null 2>&1 || die "cmake not found: record needs CMake 3.25 or newer"
    local cxx="${CXX:-}"
    if [[ -z "$cxx" ]]; then
        for cxx in c++ g++ clang++ ""; do command -v "$cxx" >/dev/null 2>&1 && break; done
    fi
    [[ -n "$cxx" ]] || die "no C++ compiler found (c++, g++, clang++ or \$CXX)"
    local nvcc
    nvcc="$(find_nvcc)" || die "no CUDA toolkit: nvcc is not on PATH, in \$CUDA_HOME/bin or in /usr/local/cuda/bin (install the CUDA toolkit, 12 or newer, or set CUDACXX)"
    local nvcc_version
    nvcc_version="$("$nvcc" --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')"
    [[ -n "$nvcc_version" ]] || die "cannot read the version of $nvcc ('$nvcc --version' says: $("$nvcc" --version 2>&1 | tail -n 1))"
    say "nvcc $nvcc_version: $nvcc"
    [[ "${nvcc_version%%.*}" -ge 12 ]] ||
        die "nvcc $nvcc_version is too old: the workload needs CUDA 12 or newer (cudaStreamGetId)"

    # Build: the collector and the workload only.
    local build="$OUTDIR/build" generator=()
    if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
        generator=(-G Ninja)
    fi
    local jobs="${GPU_CHECK_JOBS:-$(nproc 2>/dev/null || echo 4)}"
    say "building the collector and the workload in $build (log: $OUTDIR/build.log)"
    if ! cmake -S "$REPO" -B "$build" ${generator[@]+"${generator[@]}"} -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_COMPILER="$(command -v "$cxx")" -DCMAKE_CUDA_COMPILER="$nvcc" \
        -DSPANSCOPE_COLLECTOR_ONLY=ON -DSPANSCOPE_GPU_WORKLOAD=ON >"$OUTDIR/build.log" 2>&1; then
        tail -n 25 "$OUTDIR/build.log" >&2
        die "configuring failed (all of it in $OUTDIR/build.log)"
    fi
    if ! cmake --build "$build" --target spanscope-collector spanscope-sps-dump spanscope-gpu-workload \
        -j "$jobs" >>"$OUTDIR/build.log" 2>&1; then
        tail -n 25 "$OUTDIR/build.log" >&2
        die "building failed (all of it in $OUTDIR/build.log)"
    fi
    COLLECTOR="$build/lib/libspanscope-collector.so"
    WORKLOAD="$build/bin/spanscope-gpu-workload"
    # CUPTI's own cost (tests/gpu/cupti_floor.cu), the floor under the collector's: only a
    # figure, so the check goes on without it.
    FLOOR=
    if cmake --build "$build" --target spanscope-cupti-floor -j "$jobs" >>"$OUTDIR/build.log" 2>&1 &&
        [[ -x "$build/bin/spanscope-cupti-floor" ]]; then
        FLOOR="$build/bin/spanscope-cupti-floor"
    else
        say "spanscope-cupti-floor was not built (see $OUTDIR/build.log): the overhead rounds go without CUPTI's own figure"
    fi
    [[ -f "$COLLECTOR" && -x "$WORKLOAD" ]] || die "the build made no $COLLECTOR or $WORKLOAD"
    local symbols
    if command -v nm >/dev/null 2>&1 && symbols="$(nm -D --defined-only "$COLLECTOR" 2>/dev/null)" &&
        ! grep -q ' InitializeInjection$' <<<"$symbols"; then
        say "warning: $COLLECTOR exports no InitializeInjection: CUDA_INJECTION64_PATH cannot start its CUDA half, so the recording will hold NVTX ranges but no GPU work"
    fi
    say "built in $((SECONDS - started)) s"

    # The workload, plain, then recorded.
    say "workload without the collector"
    local status
    if limited 120 "${CLEAN_ENV[@]}" "$WORKLOAD" --json "$OUTDIR/gpu-workload-plain.json" 2>&1 | tee -a "$LOG"; then
        status=0
    else
        status=${PIPESTATUS[0]}
    fi
    ((status != 124)) || die "the workload without the collector ran past 120 s"
    ((status == 0)) ||
        die "the workload failed without the collector (status $status, see above): the GPU, the driver or the workload is at fault, not the collector"
    say "workload under the collector -> $OUTDIR/gpu-workload.sps"
    rm -f "$OUTDIR/gpu-workload.sps" "$OUTDIR/gpu-workload.json"
    if limited 120 "${CLEAN_ENV[@]}" NVTX_INJECTION64_PATH="$COLLECTOR" CUDA_INJECTION64_PATH="$COLLECTOR" \
        SPANSCOPE_OUTPUT="$OUTDIR/gpu-workload.sps" \
        "$WORKLOAD" --json "$OUTDIR/gpu-workload.json" 2>&1 | tee -a "$LOG"; then
        status=0
    else
        status=${PIPESTATUS[0]}
    fi
    ((status != 124)) || die "the workload under the collector ran past 120 s (it ran without in time)"
    ((status == 0)) || die "the workload failed under the collector (status $status; it ran without): see above"
    [[ -s "$OUTDIR/gpu-workload.sps" ]] || die "the collector wrote no $OUTDIR/gpu-workload.sps"
    "$build/bin/spanscope-sps-dump" "$OUTDIR/gpu-workload.sps" >"$OUTDIR/gpu-workload.sps.txt" 2>&1 || true
    sed -n '1,/records dropped/p' "$OUTDIR/gpu-workload.sps.txt" | sed 's/^/gpu-check: sps: /'

    # Overhead: alternating rounds, each way first in turn, medians.
    say "overhead: $ROUNDS rounds of $LAUNCHES empty kernels each way"
    local plain=() collected=() floor=() round ns
    for ((round = 1; round <= ROUNDS; round++)); do
        local order=(plain collector)
        ((round % 2)) || order=(collector plain)
        for how in "${order[@]}"; do
            ns="$(overhead_run "$how")"
            if [[ "$how" == plain ]]; then plain+=("$ns"); else collected+=("$ns"); fi
        done
        if [[ -n "$FLOOR" ]]; then
            if ns="$(overhead_run cupti)"; then
                floor+=("$ns")
            else
                say "spanscope-cupti-floor failed (see $LOG): the rounds go on without CUPTI's own figure"
                FLOOR=
            fi
        fi
        say "  round $round: plain ${plain[-1]} ns/launch, collector ${collected[-1]} ns/launch${FLOOR:+, CUPTI alone ${floor[-1]} ns/launch}"
    done
    rm -f "$OUTDIR/overhead.sps"
    local plain_median collected_median ratio verdict
    plain_median="$(printf '%s\n' "${plain[@]}" | median)"
    collected_median="$(printf '%s\n' "${collected[@]}" | median)"
    ratio="$(awk -v a="$collected_median" -v b="$plain_median" 'BEGIN { printf "%.3f", a / b }')"
    verdict="$(awk -v r="$ratio" -v g="$OVERHEAD_GOAL" 'BEGIN { print (r <= g) ? "met" : "NOT met" }')"
    local line="overhead: median ns per launch: plain $plain_median, collector $collected_median; ratio $ratio (goal <= $OVERHEAD_GOAL: $verdict; $ROUNDS rounds of $LAUNCHES launches)"
    say "$line"
    local floor_line=
    if ((${#floor[@]} == ROUNDS)); then
        local floor_median
        floor_median="$(printf '%s\n' "${floor[@]}" | median)"
        floor_line="CUPTI alone (the collector's activity kinds, no spanscope): median $floor_median ns per launch; collector / CUPTI alone $(awk -v a="$collected_median" -v b="$floor_median" 'BEGIN { printf "%.3f", a / b }')"
        say "$floor_line"
    fi
    {
        echo "$line"
        echo "plain ns/launch per round:     ${plain[*]}"
        echo "collector ns/launch per round: ${collected[*]}"
        [[ -z "$floor_line" ]] || { echo "$floor_line"; echo "CUPTI alone ns/launch per round: ${floor[*]}"; }
    } >"$OUTDIR/overhead.txt"
    local plain_list collected_list
    plain_list="$(IFS=,; echo "${plain[*]}")"
    collected_list="$(IFS=,; echo "${collected[*]}")"
    cat >"$OUTDIR/overhead.json" <<EOF
{"launches_per_round": $LAUNCHES, "rounds": $ROUNDS,
 "plain_ns_per_launch": [$plain_list], "collector_ns_per_launch": [$collected_list],
 "plain_median_ns": $plain_median, "collector_median_ns": $collected_median,
 "ratio": $ratio, "goal": $OVERHEAD_GOAL}
EOF
    say "recorded in $((SECONDS - started)) s: $OUTDIR"
    ((SECONDS - started < 240)) || say "warning: record took over 4 minutes"
}

# ---------------------------------------------------------------------------------------
# check

find_cli() {
    local candidate
    if [[ -n "$CLI_ARG" ]]; then
        [[ -x "$CLI_ARG" ]] || return 1
        echo "$CLI_ARG"
        return 0
    fi
    for candidate in "${SPANSCOPE_CLI:-}" "$(command -v spanscope-cli 2>/dev/null || true)" \
        "$REPO/build/bin/spanscope-cli"; do
        if [[ -n "$candidate" && -x "$candidate" ]]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# Writes spanscope-cli's JSON summary of the recording to $1.
summarize() {
    local summary="$1" sps="$OUTDIR/gpu-workload.sps" cli
    [[ -s "$sps" ]] || die "no recording: $sps is missing or empty (run scripts/gpu-check.sh record $OUTDIR first)"
    cli="$(find_cli)" || die "spanscope-cli not found: check needs the full build (Qt, HDF5). Build spanscope (cmake --build build), or pass --cli PATH or set SPANSCOPE_CLI; on a machine without it, copy $OUTDIR to one that has it and run scripts/gpu-check.sh check there"
    say "spanscope-cli: $cli"
    # spanscope-cli opens the collector's stream as it is (assembled as the live viewer would).
    "$cli" summary --format json "$sps" >"$summary" 2>"$OUTDIR/summary.err" ||
        die "spanscope-cli summary failed: $(cat "$OUTDIR/summary.err")"
}

check() {
    [[ -d "$OUTDIR" ]] || die "no such folder: $OUTDIR"
    command -v python3 >/dev/null 2>&1 || die "python3 not found: check compares the JSON with it"
    local expected="$OUTDIR/gpu-workload.json" summary
    [[ -s "$expected" ]] || die "no $expected: the workload's own figures (run scripts/gpu-check.sh record $OUTDIR first)"
    if [[ -n "$SUMMARY_ARG" ]]; then
        summary="$SUMMARY_ARG"
        [[ -s "$summary" ]] || die "no such summary: $summary"
    else
        summary="$OUTDIR/summary.json"
        summarize "$summary"
    fi
    say "comparing $summary with $expected (GPU times within $TOLERANCE_PCT %)"
    python3 - "$expected" "$summary" "$OUTDIR/overhead.json" "$TOLERANCE_PCT" <<'PYTHON'
import json
import os
import sys

expected_path, summary_path, overhead_path, tolerance_pct = sys.argv[1:5]
tolerance = float(tolerance_pct) / 100.0
counts = {"ok": 0, "FAIL": 0, "skip": 0}


def line(status, text):
    counts[status] += 1
    print(f"{status:<5} {text}")


def info(text):
    print(f"info  {text}")


def shown(value):
    return "missing" if value is None else json.dumps(value)


def same(figure, expected, got, hint=""):
    if got == expected and type(got) is type(expected):
        line("ok", f"{figure}: {shown(got)}")
    else:
        line("FAIL", f"{figure}: expected {shown(expected)}, got {shown(got)}" + (f" ({hint})" if hint else ""))


def within(figure, expected_ns, got_ns, source):
    if got_ns is None:
        line("FAIL", f"{figure}: expected {expected_ns} ns ±{tolerance_pct} % ({source}), got null")
        return
    if expected_ns <= 0:
        same(figure, expected_ns, got_ns)
        return
    off = (got_ns - expected_ns) / expected_ns
    text = f"{figure}: expected {expected_ns} ns ±{tolerance_pct} % ({source}), got {got_ns} ({off * 100:+.2f} %)"
    line("ok" if abs(off) <= tolerance else "FAIL", text)


def load(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL  {what}: cannot read {path}: {e}")
        sys.exit(1)


expected = load(expected_path, "the workload's figures")
summary = load(summary_path, "the summary")
if expected.get("format") != "spanscope-gpu-workload":
    print(f"FAIL  {expected_path}: not the workload's JSON (format {expected.get('format')!r})")
    sys.exit(1)
if isinstance(summary, list):
    if len(summary) != 1:
        print(f"FAIL  {summary_path}: summary of {len(summary)} files, expected one")
        sys.exit(1)
    summary = summary[0]
metadata = summary.get("metadata") or {}
gpu = summary.get("gpu") or {}
device = expected.get("device", {})
info(f"workload on {device.get('name', '?')} (sm {device.get('compute_capability', '?')}, "
     f"driver {device.get('driver_version', '?')}, runtime {device.get('runtime_version', '?')})")
for warning in summary.get("warnings") or []:
    info(f"summary warning: {warning}")

# Per stream: kernels, copies, memsets as launched (summed over the devices that report the
# stream: the ids are unique in the process). A stream is found by the name the workload gave
# it (nvtxNameCudaStreamA, which the collector maps to CUPTI's stream id): CUPTI numbers
# streams its own way, and its ids need not be cudaStreamGetId's.
got_streams = {}
for dev in gpu.get("devices") or []:
    for s in dev.get("streams") or []:
        g = got_streams.setdefault(s.get("stream"), {"kernels": 0, "memcpys": 0, "memsets": 0, "memcpy_bytes": 0,
                                                     "name": s.get("name") or ""})
        for key in ("kernels", "memcpys", "memsets", "memcpy_bytes"):
            g[key] += s.get(key) or 0
matched_ids = set()
for s in expected.get("streams", []):
    name = s.get("name", "")
    named = [sid for sid, g in got_streams.items() if name and g["name"] == name]
    if len(named) == 1:
        sid = named[0]
        label = f"stream {name}"
        if sid != s["stream"]:
            info(f"{label}: CUPTI stream id {sid}, cudaStreamGetId {s['stream']}")
    else:
        sid = s["stream"]
        label = f"stream {sid} ({name})"
        line("FAIL", f"{label} name: expected one stream named {name!r}, got {len(named)}")
    matched_ids.add(sid)
    g = got_streams.get(sid)
    absent = "" if g is not None else "no such stream in gpu.devices[].streams[]"
    for key in ("kernels", "memcpys", "memsets", "memcpy_bytes"):
        same(f"{label} {key}", s[key], (g or {}).get(key, 0), absent)
for sid, g in sorted(got_streams.items(), key=lambda item: str(item[0])):
    if sid not in matched_ids and (g["kernels"] or g["memcpys"] or g["memsets"]):
        line("FAIL", f"stream {sid} ({g['name']}): expected no GPU work (the workload used streams "
                     f"{sorted(matched_ids, key=str)}), got kernels {g['kernels']}, memcpys {g['memcpys']}, "
                     f"memsets {g['memsets']}")

# Launches: runtime calls linked to their GPU work (a graph launch counts once).
same("gpu.launches_matched", expected["launches"], gpu.get("launches_matched"),
     "the workload's launches: kernel launches, cudaMemcpyAsync, cudaMemsetAsync, each cudaGraphLaunch once")

# Drops and the stream's integrity.
nvtx = summary.get("nvtx")
if nvtx is None:
    line("FAIL", "nvtx: expected the object of a live capture, got missing (not a spanscope-collector recording?)")
    nvtx = {}
same("nvtx.dropped_records", 0, nvtx.get("dropped_records"))
same("metadata.cupti_dropped_records", 0, metadata.get("cupti_dropped_records"),
     "the collector's CUDA half reports the activity records CUPTI dropped here" if "cupti_dropped_records" not in metadata else "")
if "nvtx_budget_dropped_spans" in metadata:
    same("metadata.nvtx_budget_dropped_spans", 0, metadata.get("nvtx_budget_dropped_spans"))
same("nvtx.closed_at_end", 0, nvtx.get("closed_at_end"), "ranges left open: the stream ended early")
same("nvtx.anomalies", 0, nvtx.get("anomalies"))
if "nvtx_stream_complete" in metadata:
    same("metadata.nvtx_stream_complete", True, metadata.get("nvtx_stream_complete"))

# NVTX ranges: the GPU time of the work launched inside each, against the workload's events.
pooled = summary.get("pooled") or []
regions = {}
for r in pooled:
    regions.setdefault((r.get("name"), r.get("kind")), r)
for r in expected.get("ranges", []):
    name = r["name"]
    got = regions.get((name, "cpu"))
    if got is None:
        line("FAIL", f"range '{name}': expected a region of kind cpu in pooled[], got none")
        continue
    same(f"range '{name}' calls", r.get("calls", 1), got.get("calls"))
    if r.get("gpu_work"):
        within(f"range '{name}' gpu_total_ns", r["gpu_ns"], got.get("gpu_total_ns"), "cudaEventElapsedTime")
    elif got.get("gpu_total_ns") not in (None, 0):
        line("FAIL", f"range '{name}' gpu_total_ns: expected none (it launches no GPU work), got {got.get('gpu_total_ns')}")
    else:
        line("ok", f"range '{name}' gpu_total_ns: none (no GPU work)")

# Device windows: regions of kind gpu_range named by the window.
windows = expected.get("windows") or []
if not windows:
    line("skip", "device windows: the workload reports none (built without collector/window's DeviceWindows)")
for w in windows:
    name = w["name"]
    got = regions.get((name, "gpu_range"))
    if got is None:
        line("FAIL", f"window '{name}': expected a region of kind gpu_range in pooled[], got none")
        continue
    same(f"window '{name}' calls", w["calls"], got.get("calls"))
    within(f"window '{name}' gpu_total_ns", w["gpu_ns"], got.get("gpu_total_ns"), "cudaEvents around the window")

if expected.get("gate_timeouts"):
    info(f"{expected['gate_timeouts']} of the workload's gates timed out (the GPU times are still comparable)")
if os.path.exists(overhead_path):
    o = load(overhead_path, "the overhead figures")
    verdict = "met" if o["ratio"] <= o["goal"] else "NOT met"
    info(f"overhead: plain {o['plain_median_ns']} ns/launch, collector {o['collector_median_ns']} ns/launch, "
         f"ratio {o['ratio']:.3f} (goal <= {o['goal']:.2f}: {verdict})")

print(f"gpu-check: {counts['ok'] + counts['FAIL']} checks, {counts['FAIL']} failed, {counts['skip']} skipped")
sys.exit(1 if counts["FAIL"] else 0)
PYTHON
}

# ---------------------------------------------------------------------------------------

case "$MODE" in
record)
    OUTDIR="$(mkdir -p "$OUTDIR" && cd "$OUTDIR" && pwd)"
    record
    ;;
check)
    [[ -d "$OUTDIR" ]] || die "no such folder: $OUTDIR"
    OUTDIR="$(cd "$OUTDIR" && pwd)"
    check
    ;;
all)
    OUTDIR="$(mkdir -p "$OUTDIR" && cd "$OUTDIR" && pwd)"
    record
    check
    ;;
esac
