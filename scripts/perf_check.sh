#!/usr/bin/env bash
# scripts/perf_check.sh - one call on the H200 for the timing harness, the plan layer and the staged-C
# epilogue: build (cmake --preset h200 into build/h200-perf, without the emulated sm100 kernel), run the timing
# harness's own test, the plan's CPU test, the sm90 GPU cases and the cuBLAS matrix on the sm90 path, then
# wsgemm-run side by side with cuBLAS
# (GPU time, host us) on the shapes below, and sm90_tune tables of 3072^3, 1000^3 and 4096^3 at beta = 1.
# Prints a line per step and a row per shape. Logs: perf.tgz in $WSGEMM_LOG_DIR (scripts/sm90_check_lib.sh). About 7-8
# minutes on 16 cores.
#
#   scripts/perf_check.sh [--no-tests]
set -u -o pipefail
cd "$(dirname "$0")/.."
run_tests=1
[ "${1:-}" = --no-tests ] && run_tests=0
. scripts/sm90_check_lib.sh
check_init perf build/h200-perf/out
check_build build/h200-perf timing_test sm90_plan_test sm90_gemm_test gemm_matrix_test wsgemm-run sm90_tune

# The staged C epilogue (c_full / c_empty) and the pingpong schedule (turn[]) are the new synchronization:
# their cases run first and alone, under a short timeout, so a hang costs 2 minutes and the timing below skips
# their shapes instead of hanging too.
staged_hung=0 pingpong_hung=0
if [ $run_tests = 1 ]; then
  t1=$SECONDS
  check_alone staged staged
  staged_hung=$alone_hung
  # the pingpong schedule (only when asked for: WSGEMM_SM90_VARIANT=6) the same way
  check_alone pingpong pingpong
  pingpong_hung=$alone_hung
  pack
  # after a hang, the other tests run with the tile-end stores wherever the plan would take the staged tile
  steer=""
  [ $staged_hung = 1 ] && steer="WSGEMM_SM90_EPILOGUE=tma"
  (cd "$bin" && env $steer ctest -j 4 --output-on-failure --timeout 300 -R "^timing_test|^sm90_plan_test|^sm90_gemm_test|^gemm_matrix\.sm90\." \
     -E "sm90_gemm_test\.(staged|pingpong)" >"$work/ctest.log" 2>&1)
  note "tests      $(grep -E 'tests passed|tests failed' "$work/ctest.log" | tail -1) ($((SECONDS - t1)) s)"
  grep -E "^\s*[0-9]+ - .*(Failed|Timeout|Not Run)" "$work/ctest.log" | head -20 | sed 's/^/           /'
  grep -E "^FAIL " "$work/ctest.log" | head -10 | sed 's/^/           /'
  pack
fi

# label | wsgemm-run arguments | environment
shapes=(
  "4096^3|--m 4096 --n 4096 --k 4096|"
  "4096^3 beta=1|--m 4096 --n 4096 --k 4096 --beta 1|"
  "4096^3 beta=1 tile-end|--m 4096 --n 4096 --k 4096 --beta 1|WSGEMM_SM90_EPILOGUE=tma"
  "8192^3|--m 8192 --n 8192 --k 8192|"
  "8192^3 beta=1|--m 8192 --n 8192 --k 8192 --beta 1|"
  "8192^3 beta=1 tile-end|--m 8192 --n 8192 --k 8192 --beta 1|WSGEMM_SM90_EPILOGUE=tma"
  "8192^3 f32 C|--m 8192 --n 8192 --k 8192 --c f32|"
  "8192^3 f32 C tile-end|--m 8192 --n 8192 --k 8192 --c f32|WSGEMM_SM90_EPILOGUE=tma"
  "4096^3 f32 C beta=1|--m 4096 --n 4096 --k 4096 --c f32 --beta 1|"
  "8192x8192x1024|--m 8192 --n 8192 --k 1024|"
  "8192x8192x1024 beta=1|--m 8192 --n 8192 --k 1024 --beta 1|"
  "8192x8192x1024 pingpong|--m 8192 --n 8192 --k 1024|WSGEMM_SM90_VARIANT=6 WSGEMM_SM90_BN=128"
  "4096x14336x4096|--m 4096 --n 14336 --k 4096|"
  "5000x7000x3000|--m 5000 --n 7000 --k 3000|"
  "1000^3|--m 1000 --n 1000 --k 1000|"
  "2048^3|--m 2048 --n 2048 --k 2048|"
  "3072^3|--m 3072 --n 3072 --k 3072|"
  "3072^3 pingpong|--m 3072 --n 3072 --k 3072|WSGEMM_SM90_VARIANT=6 WSGEMM_SM90_BN=128"
  "16x8192x8192|--m 16 --n 8192 --k 8192|"
  "128x8192x8192|--m 128 --n 8192 --k 8192|"
)
table=("| shape | path | wsgemm ms | cuBLAS ms | GPU-time ratio | host us wsgemm / cuBLAS | rounds held | check | plan |"
       "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
i=0
for entry in "${shapes[@]}"; do
  IFS='|' read -r label args envs <<<"$entry"
  log="$work/run_$i.log"
  i=$((i + 1))
  if [ $staged_hung = 1 ] && [ -z "$envs" ] && [[ "$label" == *beta=1* || "$label" == *f32* ]]; then
    table+=("| $label | skipped: the staged epilogue hung in its test |  |  |  |  |  |  |  |")
    continue
  fi
  if [ $pingpong_hung = 1 ] && [[ "$label" == *pingpong* ]]; then
    table+=("| $label | skipped: the pingpong schedule hung in its test |  |  |  |  |  |  |  |")
    continue
  fi
  run_shape "$log" 90 "$envs" $args
  table+=("| $label | $rs_path | $rs_ws_ms | $rs_cb_ms | $rs_ratio | $rs_host | $rs_held | $rs_check | $(grep -m1 -oE ' (cooperative|pingpong) ' "$log")$(grep -m1 -oE 'variant=[0-9]+' "$log") $(grep -m1 -oE 'epilogue=[a-z-]+' "$log") $(grep -m1 -oE '128x[0-9]+x64' "$log") |")
done
printf '%s\n' "${table[@]}" >"$work/table.md"
pack

# the configurations of two shapes where one 128 x 256 tile shape loses (2.2 waves at 3072^3; 1000^3),
# and beta = 1 at 4096^3: data for the next tile and schedule choices (sm90_tune.log in perf.tgz)
t2=$SECONDS
[ $pingpong_hung = 0 ] && # its configurations include the pingpong kernel
  timeout 70 "$bin/sm90_tune" --reps 10 3072 3072 3072 1000 1000 1000 >"$work/sm90_tune.log" 2>"$work/sm90_tune.stderr.log"
[ $staged_hung = 0 ] &&
  timeout 40 "$bin/sm90_tune" --reps 10 --beta 1 4096 4096 4096 >>"$work/sm90_tune.log" 2>>"$work/sm90_tune.stderr.log"
note "sm90_tune  $((SECONDS - t2)) s: $(grep -c 'x cuBLAS\|  [a-zA-Z]' "$work/sm90_tune.log") lines in sm90_tune.log"
check_finish
