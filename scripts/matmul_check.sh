#!/usr/bin/env bash
# The GPU check of wsgemm_matmul in one command (an H200: sm_90a): build with every core, run the
# argument checks, the cuBLASLt comparison matrix on every path, then regressions of the kernels the matmul
# work edited (generic, the sm90 epilogues; as many as the time budget allows), then the cuBLASLt
# side-by-side suite; the summary table comes at the end. Fits in 9 minutes on 16 cores.
#
#   scripts/matmul_check.sh [--no-bench]
#
# Logs go to $WSGEMM_LOG_DIR when it is set (else build/matmul-h200/logs), one file per step; summary.txt holds the
# table. Exit 0 when every step passed.
set -u -o pipefail
cd "$(dirname "$0")/.."
bench=1
for a in "$@"; do
  case $a in --no-bench) bench=0 ;; *) echo "usage: $0 [--no-bench]"; exit 2 ;; esac
done
logs=${WSGEMM_LOG_DIR:-build/matmul-h200/logs}
mkdir -p "$logs"
build=build/matmul-h200
jobs=$(nproc)
summary=()
failed=0
note() { summary+=("$1"); }

start=$SECONDS
budget=${MATMUL_CHECK_BUDGET_S:-500} # seconds for everything; the regression steps stop early to leave the bench
# step <name> <timeout s> <command...>: the command's output to $logs/<name>.log, a PASS/FAIL/SKIP line
step() {
  local name=$1 secs=$2; shift 2
  local t0=$SECONDS rc
  timeout "$secs" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  local verdict=PASS
  if [ $rc = 77 ]; then verdict=SKIP; elif [ $rc != 0 ]; then verdict=FAIL; failed=1; fi
  [ $rc = 124 ] && verdict="FAIL (timed out after $secs s)"
  note "$(printf '%-34s %-6s %4d s  %s' "$name" "$verdict" $((SECONDS - t0)) "$(tail -1 "$logs/$name.log" | cut -c1-90)")"
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$logs/gpu.txt" 2>&1 || true
t0=$SECONDS
if cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWSGEMM_CUDA_ARCHS=90a \
     -DWSGEMM_SM100_EMULATION=OFF -DWSGEMM_PTXAS_VERBOSE=OFF >"$logs/configure.log" 2>&1 &&
   cmake --build "$build" -j "$jobs" --target matmul_api_test matmul_matrix_test gemm_matrix_test api_test \
     sm90_gemm_test wsgemm-run wsgemm-matmul-bench >"$logs/build.log" 2>&1; then
  note "$(printf '%-34s %-6s %4d s' build PASS $((SECONDS - t0)))"
else
  tail -40 "$logs/configure.log" "$logs/build.log"; echo "BUILD FAILED"; exit 1
fi

# argument checks (they run without CUDA; no_device hides the GPU itself)
for c in null_handle null_desc invalid_op invalid_dtype invalid_epilogue unsupported_types negative_sizes \
         null_scalars leading_dims in_place null_pointers misaligned quick_return no_device gemm_ex_fp8 desc_init; do
  timeout 30 "$build/tests/matmul/matmul_api_test" "$c" >>"$logs/matmul_api.log" 2>&1 || { failed=1; echo "FAILED: $c" >>"$logs/matmul_api.log"; }
done
note "$(printf '%-34s %-6s         %s' matmul_api_test "$(grep -q FAILED "$logs/matmul_api.log" && echo FAIL || echo PASS)" "$(grep -c ': passed' "$logs/matmul_api.log") of 16 cases passed")"

# the matrix's own cases pass the argument checks and stay inside their operands (CPU, GPUs hidden)
step matmul_matrix.layouts 60 "$build/tests/matmul/matmul_matrix_test" layouts
# the cuBLASLt comparison matrix, per path (sm90: what its kernels run, fused epilogues included, runs; the
# rest must be declined with D untouched)
for path in generic auto sm90; do
  for group in epilogues fp8 shapes fused edges; do
    step "matmul_matrix.$path.$group" 120 "$build/tests/matmul/matmul_matrix_test" "$group" "$path"
  done
done

# regressions of wsgemm_gemm_ex on the kernels the matmul work edited (the generic kernel; the sm90 kernel's
# epilogues, which the fused kernels extend), while the time allows (the bench needs about 120 s at the end)
regress() { # name timeout command...
  if [ $((SECONDS - start)) -gt $((budget - 180)) ]; then note "$(printf '%-34s %-6s' "$1" "NOT RUN (time budget)")"; return; fi
  step "$@"
}
for c in deferred staged tmastore alphabeta; do
  regress "sm90_gemm_test.$c" 90 "$build/tests/sm90/sm90_gemm_test" "$c"
done
for path in generic sm90; do
  for group in shapes ops types alpha_beta leading_dims batch; do
    regress "gemm_matrix.$path.$group" 90 "$build/tests/generic/gemm_matrix_test" "$group" "$path"
  done
done
regress api_test.edge_semantics 60 "$build/tests/api/api_test" edge_semantics

step wsgemm-run.plain.4096 60 "$build/wsgemm-run" --m 4096 --n 4096 --k 4096 --reps 10
step wsgemm-run.fp8_gelu_bias.2048 60 "$build/wsgemm-run" --m 2048 --n 2048 --k 2048 --ta T --ab e4m3 --c bf16 \
  --epilogue gelu_bias --scales 1 --reps 5
if [ $bench = 1 ]; then
  step wsgemm-matmul-bench 240 "$build/wsgemm-matmul-bench" --reps 10
fi

{
  echo "== wsgemm_matmul GPU check: $(cat "$logs/gpu.txt" 2>/dev/null)"
  printf '%s\n' "${summary[@]}"
  if [ $bench = 1 ] && [ -f "$logs/wsgemm-matmul-bench.log" ]; then
    echo "== cuBLASLt side by side (GPU time; ratio = TFLOP/s over cuBLASLt's)"
    grep -E "^(problem|fp8|bf16)" "$logs/wsgemm-matmul-bench.log"
  fi
  echo "== $([ $failed = 0 ] && echo "ALL PASSED" || echo "FAILURES: see the FAIL lines; logs in $logs")"
} | tee "$logs/summary.txt"
exit $failed
