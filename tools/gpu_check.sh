#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/gpu_check.sh - one command for a GPU machine: configure a preset and build it with every core, run its
# tests (and the test presets named after it), the main job at 4096^3 and 8192^3, optionally the benchmarks,
# and print a short summary table last.
#
#   tools/gpu_check.sh [--quick] [--bench] [--logs DIR] CONFIGURE_PRESET [TEST_PRESET...]
#     CONFIGURE_PRESET  configured and built (cmake --preset, cmake --build -j <cores>), e.g. h200
#     TEST_PRESET...    run in this order (default: the one named like the configure preset); for the long
#                       checks on the same build: h200-sanitize, h200-tracked, h200-mutation, h200-package
#     --quick           the main job at 4096^3 only
#     --bench           also tools/bench.sh BUILD all (needs the benchmarks in the build; BENCH_BUDGET_S,
#                       default 240)
#     --logs DIR        the log folder (else $WSGEMM_LOG_DIR, else a new folder under /tmp, named at the end)
#
# e.g. tools/gpu_check.sh h200                       the whole everyday suite on the H200
#      tools/gpu_check.sh h200 h200 h200-sanitize    and the sanitizer runs after it
#
# Every test runs but the CPU-only code checks that compile at test time (code_check, sm100_static): CI runs
# those, and the GPU machine's time is short. Each step writes its log as it goes (configure.log, build.log,
# ctest_<preset>.log with LastTest_<preset>.log, run_<size>.log, bench/), so a run stopped by a time limit
# still leaves the logs of the steps that finished; summary.txt holds the table. Exit 0 when the build, every
# test preset and every main-job check passed.
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { echo "usage: $0 [--quick] [--bench] [--logs DIR] CONFIGURE_PRESET [TEST_PRESET...]" >&2; exit 2; }
quick=0 bench=0 logs=${WSGEMM_LOG_DIR:-}
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --bench) bench=1 ;;
    --logs) [ $# -ge 2 ] || usage; logs=$2; shift ;;
    -*) usage ;;
    *) break ;;
    esac
    shift
done
[ $# -ge 1 ] || usage
preset=$1
shift
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("$preset")
[ -n "$logs" ] || logs=$(mktemp -d "${TMPDIR:-/tmp}/wsgemm-gpu-check.XXXXXX")
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
cd "$root" || exit 2
jobs=$(nproc)
rows=()
failed=0
# row STEP RESULT SECONDS DETAIL
row() {
    rows+=("$(printf '%-24s %-5s %5s  %s' "$1" "$2" "$3" "$4")")
    [ "$2" = FAIL ] && failed=1
    printf '%s\n' "${rows[-1]}"
}
finish() {
    {
        echo "== gpu_check $preset ($(date -u +%Y-%m-%dT%H:%MZ), $(head -1 "$logs/gpu.txt"), commit" \
             "${WSGEMM_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}; logs in $logs)"
        if [ -s "$logs/failed.txt" ]; then
            echo "failed tests ($(wc -l <"$logs/failed.txt"); all in failed.txt):"
            head -20 "$logs/failed.txt"
        fi
        printf '%-24s %-5s %5s  %s\n' step result s detail
        printf '%s\n' "${rows[@]}"
        echo "GPU_CHECK: $([ $failed = 0 ] && echo PASS || echo FAIL)"
    } | tee "$logs/summary.txt"
    exit $failed
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$logs/gpu.txt" 2>&1 ||
    echo "no nvidia-smi" >"$logs/gpu.txt"

t=$SECONDS
if ! cmake --preset "$preset" >"$logs/configure.log" 2>&1; then
    tail -20 "$logs/configure.log"
    row configure FAIL $((SECONDS - t)) "cmake --preset $preset (configure.log)"
    finish
fi
build=$(sed -n 's/^-- Build files have been written to: //p' "$logs/configure.log" | tail -1)
row configure PASS $((SECONDS - t)) "$build"
t=$SECONDS
if ! cmake --build "$build" -j "$jobs" >"$logs/build.log" 2>&1; then
    tail -40 "$logs/build.log"
    row build FAIL $((SECONDS - t)) "build.log"
    finish
fi
row build PASS $((SECONDS - t)) "$jobs jobs; $(grep -c 'ptxas info' "$logs/build.log") ptxas report lines"

for tp in "${tests[@]}"; do
    t=$SECONDS
    log=$logs/ctest_$tp.log
    # the everyday presets: one test per core (their GPU tests share the GPU by tests/resources.json); the
    # long-check presets keep the job counts they set
    par=()
    case $tp in release | debug | ci | h200 | h200-watchdog) par=(-j "$(nproc)") ;; esac
    ctest --preset "$tp" "${par[@]}" -E "code_check|sm100_static" >"$log" 2>&1
    rc=$?
    cp "$build/Testing/Temporary/LastTest.log" "$logs/LastTest_$tp.log" 2>/dev/null
    grep -E "^\s*[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess|Exception|Not Run|Child)" "$log" |
        sed "s/^\s*/$tp: /" >>"$logs/failed.txt"
    summary=$(grep -E "tests passed|tests failed|No tests were found" "$log" | tail -1)
    skipped=$(grep -cE "^\s*[0-9]+ - .*\(Skipped\)" "$log")
    row "ctest $tp" "$([ $rc = 0 ] && echo PASS || echo FAIL)" $((SECONDS - t)) "${summary:-no summary (exit $rc)}; $skipped skipped"
done

# The main job: one GEMM through the drop-in call, checked against cuBLAS first, then timed side by side.
sizes="4096 8192"
[ $quick = 1 ] && sizes=4096
if [ -x "$build/wsgemm-run" ]; then
    for s in $sizes; do
        t=$SECONDS
        log=$logs/run_$s.log
        timeout 60 "$build/wsgemm-run" --m "$s" --n "$s" --k "$s" --reps 20 >"$log" 2>&1
        rc=$?
        check=$(grep -m1 '^check' "$log" | awk '{print $2}')
        # the result lines, not the plan lines (wsgemm sm90: ...)
        ws=$(grep -E '^wsgemm +[a-z0-9-]+ +[0-9]' "$log" | head -1 |
             awk '{print "path "$2", "$4" TFLOP/s, "$5"x cuBLAS (GPU time), host "$6" us"}')
        cb=$(grep -E '^cuBLAS ' "$log" | head -1 | awk '{print "cuBLAS "$4" TFLOP/s, host "$6" us"}')
        detail="$ws; $cb"
        row "run ${s}^3" "$([ $rc = 0 ] && [ "$check" = PASS ] && echo PASS || echo FAIL)" $((SECONDS - t)) "$detail (exit $rc)"
    done
else
    row "run" SKIP 0 "no wsgemm-run in $build (the preset builds no tools)"
fi

if [ $bench = 1 ]; then
    t=$SECONDS
    WSGEMM_LOG_DIR="$logs/bench" BENCH_BUDGET_S=${BENCH_BUDGET_S:-240} "$root/tools/bench.sh" "$build" all \
        >"$logs/bench-console.log" 2>&1
    rc=$?
    row bench "$([ $rc = 0 ] && echo PASS || echo FAIL)" $((SECONDS - t)) \
        "exit $rc; $(grep -c 'manual_time' "$logs/bench/bench.log" 2>/dev/null) result lines; bench/table.md, bench/grid.md"
fi
finish
