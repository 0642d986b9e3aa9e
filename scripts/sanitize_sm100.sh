#!/usr/bin/env bash
# sanitize_sm100.sh [build-dir] [path] - the sanitizer check of the sm100 kernel: the cuBLAS matrix
# (gemm_matrix_test, every group) on `path` (default sm100-emulated; sm100 on a B200) and the kernel's own
# cases (test_sm100_emulated) under compute-sanitizer memcheck and synccheck. The runs go in parallel (each
# its own process and CUDA context; SAN_JOBS at a time, default 12), each limited to SAN_SECONDS (default 300).
# Needs a GPU and a build with the tests (H200: cmake --preset h200 && cmake --build --preset h200).
# Prints one line per run, then a count; exits non-zero if any run failed, timed out or reported an error.
# The planted-fault cases trap on purpose and are not run here; racecheck is not part of the check (see
# docs/sm100.md, "Results on the H200").
set -u
BUILD=${1:-build/h200}
MATRIX_PATH=${2:-sm100-emulated}
SECS=${SAN_SECONDS:-300}
SAN=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$SAN" >/dev/null || SAN=/usr/local/cuda/bin/compute-sanitizer
LOGS=${SAN_LOGS:-$(mktemp -d)}
mkdir -p "$LOGS"
runs=()
for tool in memcheck synccheck; do
    for group in shapes ops types batch alpha_beta leading_dims; do
        runs+=("$tool|matrix_$group|$BUILD/tests/generic/gemm_matrix_test $group $MATRIX_PATH")
    done
    for c in ops_cg1 ops_cg2 odd_shapes batch alpha_beta types more_ctas_than_tiles several_tiles padded_ld epilogue staged splitk; do
        runs+=("$tool|kernel_$c|$BUILD/tests/sm100/test_sm100_emulated $c")
    done
done
jobs_max=${SAN_JOBS:-12}
for r in "${runs[@]}"; do
    IFS='|' read -r tool name cmd <<<"$r"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 0.5; done
    ( t0=$SECONDS
      timeout "$SECS" "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 $cmd >"$LOGS/${tool}_$name.log" 2>&1
      echo "$? $((SECONDS - t0))" >"$LOGS/${tool}_$name.rc" ) &
done
wait
fails=0
for r in "${runs[@]}"; do
    IFS='|' read -r tool name cmd <<<"$r"
    read -r rc secs <"$LOGS/${tool}_$name.rc"
    summary=$(grep -hE 'ERROR SUMMARY' "$LOGS/${tool}_$name.log" | tail -1 | sed 's/=* *//')
    if [ "$rc" = 0 ]; then
        echo "ok    $tool $name (${secs} s): $summary"
    else
        fails=$((fails + 1))
        echo "FAIL  $tool $name (${secs} s, exit $rc$([ "$rc" = 124 ] && echo ': timed out')): $summary"
        grep -m3 -E "^=========  *(Invalid|Barrier|Race|Program hit)|FAIL" "$LOGS/${tool}_$name.log" | sed 's/^/      /'
    fi
done
echo "sanitize_sm100: ${#runs[@]} runs, $fails failed (logs in $LOGS)"
[ "$fails" = 0 ]
