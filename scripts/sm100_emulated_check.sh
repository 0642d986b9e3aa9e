#!/usr/bin/env bash
# sm100_emulated_check.sh - the sm100 kernel's whole GPU check on a Hopper machine (H200), in one command and
# under 9 minutes on 16 cores: build sm_90a with the TMEM emulation (only the targets the check runs, every
# core), then, in parallel,
#   - the CPU planner test (sm100_plan_test: the plans the GPU cases exercise),
#   - the cuBLAS matrix (gemm_matrix_test, every group) on the path sm100-emulated,
#   - the kernel's own cases (test_sm100_emulated: both cta_groups, split-K, staged operands, beta != 0,
#     every C type, the zero-tile teardown, the TMEM leak query, the planted faults),
#   - the self-check helper on the emulated kernel (self_check_gpu_test helper: bit-exact against generic),
#   - memcheck and synccheck of the matrix groups and the kernel cases (scripts/sanitize_sm100.sh's set).
# Usage: scripts/sm100_emulated_check.sh [build-dir]      (default build/sm100-emu)
# Logs: $WSGEMM_LOG_DIR/sm100-emulated-check/ when $WSGEMM_LOG_DIR is set, else <build-dir>/logs. Prints one line per run and a
# summary table; exits non-zero if the build or any run failed or timed out. Limits: RUN_SECONDS (default 200)
# per plain run, SAN_SECONDS (default 240) per sanitizer run, JOBS (default: the core count) at once.
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build/sm100-emu}
LOGS=${WSGEMM_LOG_DIR:+$WSGEMM_LOG_DIR/sm100-emulated-check}
LOGS=${LOGS:-$BUILD/logs}
RUN_SECS=${RUN_SECONDS:-200}
SAN_SECS=${SAN_SECONDS:-240}
JOBS=${JOBS:-$(nproc)}
SAN=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$SAN" >/dev/null || SAN=/usr/local/cuda/bin/compute-sanitizer
rm -rf "$LOGS"; mkdir -p "$LOGS"
t0=$SECONDS

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$LOGS/gpu.txt" 2>/dev/null || echo "no nvidia-smi" >"$LOGS/gpu.txt"
if ! { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWSGEMM_CUDA_ARCHS=90a \
         -DWSGEMM_SM100_EMULATION=ON -DWSGEMM_BUILD_BENCH=OFF -DWSGEMM_BUILD_TOOLS=OFF -DWSGEMM_PTXAS_VERBOSE=OFF &&
       cmake --build "$BUILD" -j "$(nproc)" --target gemm_matrix_test test_sm100_emulated sm100_plan_test \
         self_check_gpu_test wsgemm-sm100-selfcheck; } \
       >"$LOGS/build.log" 2>&1; then
    tail -30 "$LOGS/build.log"
    echo "sm100_emulated_check: BUILD FAILED after $((SECONDS - t0)) s (log $LOGS/build.log)"
    exit 1
fi
build_secs=$((SECONDS - t0))
echo "build ok in ${build_secs} s"

MATRIX="$BUILD/tests/generic/gemm_matrix_test"
KERNEL="$BUILD/tests/sm100/test_sm100_emulated"
MATRIX_GROUPS="shapes ops types batch alpha_beta leading_dims"
CASES="ops_cg1 ops_cg2 odd_shapes batch alpha_beta types more_ctas_than_tiles padded_ld epilogue staged splitk"
runs=("plain|plan_choices|$RUN_SECS|$BUILD/tests/sm100/sm100_plan_test choices"
      "plain|plan_sweep|$RUN_SECS|$BUILD/tests/sm100/sm100_plan_test sweep"
      "plain|selfcheck_helper|$RUN_SECS|$BUILD/tests/selfcheck/self_check_gpu_test helper $BUILD/wsgemm-sm100-selfcheck")
for g in $MATRIX_GROUPS; do runs+=("plain|matrix_$g|$RUN_SECS|$MATRIX $g sm100-emulated"); done
for c in $CASES no_leak fault_early_dealloc fault_missing_peer_signal; do
    runs+=("plain|kernel_$c|$RUN_SECS|$KERNEL $c")
done
for tool in memcheck synccheck; do
    for g in $MATRIX_GROUPS; do
        runs+=("$tool|matrix_$g|$SAN_SECS|$SAN --tool $tool --error-exitcode 99 --print-limit 20 $MATRIX $g sm100-emulated")
    done
    for c in $CASES; do
        runs+=("$tool|kernel_$c|$SAN_SECS|$SAN --tool $tool --error-exitcode 99 --print-limit 20 $KERNEL $c")
    done
done

# sanitizer runs first (the longest), then the plain ones; JOBS at a time, each its own process and context
order=()
for r in "${runs[@]}"; do [ "${r%%|*}" != plain ] && order+=("$r"); done
for r in "${runs[@]}"; do [ "${r%%|*}" = plain ] && order+=("$r"); done
for r in "${order[@]}"; do
    IFS='|' read -r tool name secs cmd <<<"$r"
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.5; done
    ( s0=$SECONDS
      timeout "$secs" $cmd >"$LOGS/${tool}_$name.log" 2>&1
      echo "$? $((SECONDS - s0))" >"$LOGS/${tool}_$name.rc" ) &
done
wait

fails=0
declare -A pass total
for r in "${runs[@]}"; do
    IFS='|' read -r tool name secs cmd <<<"$r"
    read -r rc took <"$LOGS/${tool}_$name.rc"
    total[$tool]=$(( ${total[$tool]:-0} + 1 ))
    if [ "$rc" = 0 ]; then
        pass[$tool]=$(( ${pass[$tool]:-0} + 1 ))
        printf "ok    %-9s %-28s %4s s\n" "$tool" "$name" "$took"
    else
        fails=$((fails + 1))
        printf "FAIL  %-9s %-28s %4s s  exit %s%s\n" "$tool" "$name" "$took" "$rc" "$([ "$rc" = 124 ] && echo ' (timed out)')"
        grep -m4 -E "FAIL|ERROR SUMMARY|^=========  *(Invalid|Barrier|Race|Program hit)|error" "$LOGS/${tool}_$name.log" |
            sed 's/^/      /'
    fi
done
echo
echo "sm100_emulated_check ($(cat "$LOGS/gpu.txt" 2>/dev/null | head -1)), build ${build_secs} s, total $((SECONDS - t0)) s"
printf "  %-10s %6s %6s\n" "runs" "passed" "of"
for tool in plain memcheck synccheck; do printf "  %-10s %6s %6s\n" "$tool" "${pass[$tool]:-0}" "${total[$tool]:-0}"; done
echo "  logs: $LOGS"
[ $fails = 0 ] && echo "PASSED" || echo "FAILED: $fails runs"
[ $fails = 0 ]
