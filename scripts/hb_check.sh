#!/usr/bin/env bash
# hb_check.sh - the TMEM emulation's happens-before tracking on the GPU (an H200; build: cmake --preset h200 &&
# cmake --build --preset h200). Logs go to $OUT/hb_check/ (or build/hb_check/).
#
#   scripts/hb_check.sh matrix [BUILD]         every emulated test with the tracking on (the default, made
#                                              explicit): test_sm100_emulated (both cta_groups), the cuBLAS
#                                              matrix on the sm100-emulated path, test_tmem_emu, the teardown
#                                              tests. The unmutated kernel must report nothing: every case
#                                              passes (a report traps and fails it), and no log outside the
#                                              planted-fault and misuse cases holds "TMEM-EMU ERROR".
#   scripts/hb_check.sh release-early [BUILD] [RUNS]
#                                              the accumulator-released-early bug, RUNS times (default 10) per
#                                              cta_group: as the planted fault (test_sm100_emulated
#                                              fault_acc_release_early) and as the mutant of the mutation suite
#                                              (scripts/mutants/acc_release_early.patch, test several_tiles).
#                                              Every run must end in a RACE report.
set -u -o pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
BUILD=${2:-build/h200}
LOGS=${OUT:-build}/hb_check
mkdir -p "$LOGS"
export WSGEMM_TMEM_HB=1
[ -x "$BUILD/tests/sm100/test_sm100_emulated" ] || { echo "no $BUILD/tests/sm100/test_sm100_emulated: build first"; exit 2; }

case $mode in
matrix)
    t0=$SECONDS
    ctest --test-dir "$BUILD" -j "$(nproc)" --output-on-failure --timeout 600 \
        -R "^(test_sm100_emulated\.|gemm_matrix\.sm100-emulated\.|test_tmem_emu\.|sync_teardown_emu\.|test_tmem_hb\.)" \
        >"$LOGS/matrix_ctest.log" 2>&1
    rc=$?
    # the per-test output of ctest's log: a checker report in a case that is not a planted fault or misuse
    cp "$BUILD/Testing/Temporary/LastTest.log" "$LOGS/matrix_LastTest.log" 2>/dev/null
    reports=$(awk '/^[0-9]+\/[0-9]+ Testing: /{name=$3} /TMEM-EMU ERROR/ && name !~ /fault_|misuse_|hb_release|hb_no_fence|early_dealloc/ {print name": "$0}' \
        "$LOGS/matrix_LastTest.log" 2>/dev/null | sort -u)
    notes=$(grep -h "TMEM-EMU NOTE" "$LOGS/matrix_LastTest.log" 2>/dev/null | sort | uniq -c)
    {
        grep -E "tests passed|tests failed" "$LOGS/matrix_ctest.log" | tail -1
        echo "unexpected checker reports: $( [ -z "$reports" ] && echo none || echo "$reports")"
        [ -n "$notes" ] && echo "coverage notes: $notes"
        echo "hb_check matrix: $((SECONDS - t0)) s, ctest exit $rc"
    } | tee "$LOGS/matrix_summary.txt"
    [ $rc = 0 ] && [ -z "$reports" ]
    ;;
release-early)
    runs=${3:-10}
    t0=$SECONDS
    "$BUILD/tests/sm100/test_sm100_emulated" fault_acc_release_early "$runs" >"$LOGS/release_early_fault.log" 2>&1
    rc1=$?
    OUT=$LOGS scripts/mutation_suite.sh --build "$BUILD" --only acc_release_early --tests several_tiles \
        --repeat "$runs" >"$LOGS/release_early_mutant.log" 2>&1
    rc2=$?
    {
        grep -E "caught in [0-9]+ of [0-9]+ runs" "$LOGS/release_early_fault.log"
        grep -E "^\| (baseline|acc_release_early) " "$LOGS/release_early_mutant.log"
        echo "hb_check release-early: planted fault exit $rc1, mutant suite exit $rc2, $((SECONDS - t0)) s"
    } | tee "$LOGS/release_early_summary.txt"
    [ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q "several_tiles: RACE, $runs/$runs" "$LOGS/release_early_mutant.log"
    ;;
*)
    sed -n '2,17p' "$0"
    exit 2
    ;;
esac
