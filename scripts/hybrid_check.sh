#!/usr/bin/env bash
# scripts/hybrid_check.sh - one call on the H200 for the hybrid schedule (data-parallel waves + a split
# ragged wave, gemm/common/scheduler.cuh): build (cmake --preset h200 into build/h200-hybrid, without the
# emulated sm100 kernel), run the scheduler's and the plan's CPU tests, the hybrid's GPU case alone under a
# short timeout (a hang costs 2 minutes, and the rest then runs with the hybrid off), the other sm90 GPU
# cases and the cuBLAS matrix on the sm90 path, then wsgemm-run side by side with cuBLAS (GPU time, host us)
# on the shapes below: each with the plan's own choice, and the ragged ones also with the hybrid off
# (WSGEMM_SM90_HYBRID=0: the plan before it) and forced (=2, =4: data for the cost model's constants).
# Prints a line per step and a row per shape. Logs: hybrid.tgz in $WSGEMM_LOG_DIR (scripts/sm90_check_lib.sh). About 7-8
# minutes on 16 cores.
#
#   scripts/hybrid_check.sh [--no-tests]
set -u -o pipefail
cd "$(dirname "$0")/.."
run_tests=1
[ "${1:-}" = --no-tests ] && run_tests=0
. scripts/sm90_check_lib.sh
check_init hybrid build/h200-hybrid/out
check_build build/h200-hybrid sm90_host_test sm90_plan_test sm90_gemm_test gemm_matrix_test wsgemm-run

hybrid_hung=0
if [ $run_tests = 1 ]; then
  t1=$SECONDS
  "$bin/tests/sm90/sm90_host_test" sched >"$work/host.log" 2>&1 && "$bin/tests/sm90/sm90_host_test" hybrid >>"$work/host.log" 2>&1 &&
    "$bin/tests/sm90/sm90_plan_test" choices >"$work/plan.log" 2>&1 && "$bin/tests/sm90/sm90_plan_test" sweep >>"$work/plan.log" 2>&1
  note "cpu        scheduler and plan tests: $([ $? = 0 ] && echo PASS || echo FAILED) ($(grep -h '^hybrid:\|^sweep:' "$work/host.log" "$work/plan.log" | wc -l) summary lines in host.log, plan.log)"
  # the split region changes what the kernel does at a unit's end (no C tile for it, partial tiles); its case
  # runs first and alone, so a hang costs 2 minutes and the rest runs with the hybrid off
  check_alone hybrid hybrid
  hybrid_hung=$alone_hung
  pack
  steer=""
  [ $hybrid_hung = 1 ] && steer="WSGEMM_SM90_HYBRID=0"
  (cd "$bin" && env $steer ctest -j 4 --output-on-failure --timeout 300 -R "^sm90_gemm_test|^gemm_matrix\.sm90\." \
     -E "sm90_gemm_test\.hybrid" >"$work/ctest.log" 2>&1)
  note "tests      $(grep -E 'tests passed|tests failed' "$work/ctest.log" | tail -1) ($((SECONDS - t1)) s)"
  grep -E "^\s*[0-9]+ - .*(Failed|Timeout|Not Run)" "$work/ctest.log" | head -20 | sed 's/^/           /'
  grep -E "^FAIL " "$work/ctest.log" | head -10 | sed 's/^/           /'
  pack
fi

# label | wsgemm-run arguments | environment
shapes=(
  "3072^3|--m 3072 --n 3072 --k 3072|"
  "3072^3 hybrid off|--m 3072 --n 3072 --k 3072|WSGEMM_SM90_HYBRID=0"
  "3072^3 beta=1|--m 3072 --n 3072 --k 3072 --beta 1|"
  "3072^3 beta=1 hybrid off|--m 3072 --n 3072 --k 3072 --beta 1|WSGEMM_SM90_HYBRID=0"
  "3072^3 f32 C|--m 3072 --n 3072 --k 3072 --c f32|"
  "1000^3|--m 1000 --n 1000 --k 1000|"
  "1000^3 hybrid 2|--m 1000 --n 1000 --k 1000|WSGEMM_SM90_HYBRID=2"
  "1000^3 hybrid 4|--m 1000 --n 1000 --k 1000|WSGEMM_SM90_HYBRID=4"
  "2048^3|--m 2048 --n 2048 --k 2048|"
  "5000x7000x3000|--m 5000 --n 7000 --k 3000|"
  "5000x7000x3000 hybrid 2|--m 5000 --n 7000 --k 3000|WSGEMM_SM90_HYBRID=2"
  "128x8192x8192|--m 128 --n 8192 --k 8192|"
  "128x8192x8192 hybrid 2|--m 128 --n 8192 --k 8192|WSGEMM_SM90_HYBRID=2"
  "128x8192x8192 BN 128 hybrid 2|--m 128 --n 8192 --k 8192|WSGEMM_SM90_HYBRID=2 WSGEMM_SM90_BN=128"
  "256x8192x8192|--m 256 --n 8192 --k 8192|"
  "256x8192x8192 hybrid 2|--m 256 --n 8192 --k 8192|WSGEMM_SM90_HYBRID=2"
  "4096^3|--m 4096 --n 4096 --k 4096|"
  "4096^3 hybrid 2|--m 4096 --n 4096 --k 4096|WSGEMM_SM90_HYBRID=2"
  "8192^3|--m 8192 --n 8192 --k 8192|"
)
table=("| shape | wsgemm ms | cuBLAS ms | GPU-time ratio | host us wsgemm / cuBLAS | rounds held | check | plan |"
       "| --- | --- | --- | --- | --- | --- | --- | --- |")
i=0
for entry in "${shapes[@]}"; do
  IFS='|' read -r label args envs <<<"$entry"
  log="$work/run_$i.log"
  i=$((i + 1))
  if [ $hybrid_hung = 1 ] && [[ "$envs" != *HYBRID=0* ]]; then
    envs="$envs WSGEMM_SM90_HYBRID=0"
    label="$label (hybrid off: it hung in its test)"
  fi
  run_shape "$log" 60 "$envs" $args
  table+=("| $label | $rs_ws_ms | $rs_cb_ms | $rs_ratio | $rs_host | $rs_held | $rs_check | $(grep -m1 -oE '128x[0-9]+x64' "$log") $(grep -m1 -oE 'hybrid=[0-9]+\+[0-9]+x[0-9]+' "$log") $(grep -m1 -oE 'splits=[0-9]+' "$log") $(grep -m1 -oE 'epilogue=[a-z-]+' "$log") |")
done
check_finish
