#!/usr/bin/env bash
# The one command for the GPU machine (an H200 here): configure and build (sm_90a only, plus the
# emulated sm100 kernel) with every core, run every test, run the main job at a few sizes, and
# optionally the benchmark suites and the sanitizers; print a short summary last.
#
#   scripts/gpu_check.sh [--quick] [--bench] [--sanitize]
#     --quick     main job at 4096^3 only (default: 4096^3 and 8192^3)
#     --bench     also scripts/bench.sh (JSON, plots, table; built in parallel with the tests)
#     --sanitize  also compute-sanitizer memcheck / racecheck / synccheck on small cases
#
# Logs go under a work folder; when $WSGEMM_LOG_DIR is set, everything is packed into results.tgz there
# after each stage: a run killed by a time limit still leaves the logs of the stages that finished.
set -u -o pipefail
cd "$(dirname "$0")/.."
quick=0 bench=0 sanitize=0
for a in "$@"; do
  case $a in --quick) quick=1 ;; --bench) bench=1 ;; --sanitize) sanitize=1 ;;
  *) echo "usage: $0 [--quick] [--bench] [--sanitize]"; exit 2 ;; esac
done
work=${WSGEMM_LOG_DIR:+/tmp/wsgemm-gpu-check}
work=${work:-build/h200/logs}
rm -rf "$work"; mkdir -p "$work"
jobs=$(nproc)
summary=()
note() { summary+=("$1"); }
pack() { [ -n "${WSGEMM_LOG_DIR:-}" ] && tar czf "$WSGEMM_LOG_DIR/results.tgz" -C "$work" . 2>/dev/null; true; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$work/gpu.txt" 2>&1 || true

bench_build_pid=""
if [ $bench = 1 ]; then # the benchmark's own build (no tests, no emulation) alongside the test build
  ( cmake -S . -B build/bench-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DWSGEMM_CUDA_ARCHS=90a \
      -DWSGEMM_SM100_EMULATION=OFF -DWSGEMM_BUILD_TESTS=OFF -DWSGEMM_BUILD_BENCH=ON &&
    cmake --build build/bench-h200 -j "$jobs" --target wsgemm-bench ) >"$work/bench-build.log" 2>&1 &
  bench_build_pid=$!
fi
t0=$SECONDS
if cmake --preset h200 >"$work/configure.log" 2>&1 && cmake --build --preset h200 -j "$jobs" >"$work/build.log" 2>&1; then
  note "build      ok in $((SECONDS - t0)) s ($(grep -c 'ptxas info' "$work/build.log") ptxas report lines in build.log)"
else
  tail -40 "$work/build.log" "$work/configure.log"; pack; echo "BUILD FAILED"; exit 1
fi
[ -n "$bench_build_pid" ] && wait "$bench_build_pid"

# Every test; the CPU-only code checks that compile at test time run in CI, not here.
t0=$SECONDS
ctest --preset h200 -E "code_check|sm100_static" >"$work/ctest.log" 2>&1
ctest_rc=$?
note "tests      $(grep -E 'tests passed|tests failed' "$work/ctest.log" | tail -1) ($((SECONDS - t0)) s; GPU label: $(grep -cE 'Passed' "$work/ctest.log") passed lines)"
grep -E "\*\*\*|Failed  |Timeout" "$work/ctest.log" | head -20 >"$work/ctest_bad.txt" || true
pack

sizes="4096 8192"; [ $quick = 1 ] && sizes="4096"
for s in $sizes; do
  timeout 60 build/h200/wsgemm-run --m "$s" --n "$s" --k "$s" --reps 20 >"$work/run_$s.log" 2>&1
  note "run $s^3  $(grep -E '^wsgemm ' "$work/run_$s.log" | awk '{print "path "$2", "$4" TFLOP/s, "$5"x cuBLAS (GPU time), host "$6" us"}'); $(grep -E '^cuBLAS ' "$work/run_$s.log" | awk '{print "cuBLAS "$4" TFLOP/s, host "$6" us"}'); $(grep '^check' "$work/run_$s.log" | cut -c10-)"
done
pack

if [ $bench = 1 ]; then
  WSGEMM_LOG_DIR="$work/bench" BUILD_DIR=build/bench-h200 BENCH_BUDGET_S=${BENCH_BUDGET_S:-240} scripts/bench.sh all \
    >"$work/bench-console.log" 2>&1
  note "bench      exit $? ($(grep -c 'manual_time' "$work/bench/bench.log" 2>/dev/null) result lines; table in bench/table.md, grid in bench/grid.md)"
  pack
fi

if [ $sanitize = 1 ]; then
  san() { # tool, seconds, program, case, [extra sanitizer options...]
    local tool=$1 secs=$2 prog=$3 case_name=$4; shift 4
    local log="$work/san_${tool}_$(basename "$prog")_$case_name.log"
    timeout "$secs" compute-sanitizer --tool "$tool" --error-exitcode 99 "$@" "$prog" "$case_name" >"$log" 2>&1
    local rc=$?
    note "sanitize   $tool $(basename "$prog") $case_name: $([ $rc = 0 ] && echo clean || { [ $rc = 124 ] && echo "timed out after $secs s" || echo "FAILED ($rc)"; }) $(grep -hE 'ERROR SUMMARY|HAZARD|RACECHECK SUMMARY' "$log" | tail -1)"
  }
  san_wsgemm_only() { # tool, seconds, program, case: hazards reported only in cuBLAS's nvjet_* kernels are not ours
    local tool=$1 secs=$2 prog=$3 case_name=$4
    local log="$work/san_${tool}_$(basename "$prog")_$case_name.log"
    timeout "$secs" compute-sanitizer --tool "$tool" "$prog" "$case_name" >"$log" 2>&1
    local rc=$? ours theirs
    ours=$(grep -E 'Race reported|Error:' "$log" | grep -vc nvjet_)
    theirs=$(grep -E 'Race reported' "$log" | grep -c nvjet_)
    note "sanitize   $tool $(basename "$prog") $case_name: $([ $rc = 0 ] && [ "$ours" = 0 ] && echo "clean in wsgemm's kernels" || echo "FAILED (exit $rc, $ours reports outside cuBLAS)") ($theirs reports in cuBLAS's nvjet kernels)"
  }
  san memcheck "${SAN_SECONDS:-45}" build/h200/tests/sm90/sm90_gemm_test odd
  san synccheck "${SAN_SECONDS:-45}" build/h200/tests/sm100/test_sm100_emulated ops_cg2
  if [ "${SAN_ALL:-0}" = 1 ]; then
    san racecheck "${SAN_SECONDS:-45}" build/h200/tests/sm90/sm90_gemm_test ktail
    # racecheck reports hazards inside cuBLAS's own small-m kernels (nvjet_*), which the test runs as its
    # reference (H200, 2026-11-29), and a --kernel-name filter made the first cuBLAS call fail under the
    # tool; so this run is judged on wsgemm's kernels: no hazard report naming another kernel, test passed
    san_wsgemm_only racecheck "${SAN_SECONDS:-45}" build/h200/tests/sm90/sm90_gemm_test smallm
    san_wsgemm_only racecheck "${SAN_SECONDS:-45}" build/h200/tests/sm90/sm90_gemm_test deferred
    san memcheck "${SAN_SECONDS:-45}" build/h200/tests/sm90/sm90_gemm_test cluster4
    san memcheck "${SAN_SECONDS:-45}" build/h200/tests/sm100/test_sm100_emulated odd_shapes
    san synccheck "${SAN_SECONDS:-45}" build/h200/tests/sm100/test_sm100_emulated ops_cg1
  fi
  pack
fi

echo "== failing or skipped tests"
cat "$work/ctest_bad.txt"
echo "== summary ($(date -u +%Y-%m-%dT%H:%MZ), $(cat "$work/gpu.txt"))"
printf '%s\n' "${summary[@]}"
pack
exit $ctest_rc
