#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/checks/mutant_acc_release_early.sh - the happens-before tracking reports the accumulator released early
# in every run, not when the timing happens to expose it (ctest sm100_mutation.acc_release_early, label
# mutation). The mutant (tools/mutation/mutants.py acc_release_early: the epilogue arrives on acc_empty right
# after its acc_full wait, before its tcgen05.ld of the accumulator) is built from a copy of the sources against
# the build, then `test_sm100_emulated several_tiles CG` runs N times per cta_group with WSGEMM_TMEM_HB=1.
# Passing: every run fails with the checker's RACE record naming both sites, a tcgen05.ld and a tcgen05.mma.
#
#   ctest --preset h200-mutation                      (sets WSGEMM_MUTATION=1; the build of the h200 preset)
#   tests/checks/mutant_acc_release_early.sh --build DIR [--runs N]       (N per cta_group, default 10)
#
# DIR: an emulated build (Ninja, 90a, WSGEMM_SM100_EMULATION on), configured and built when missing. Logs:
# $WSGEMM_LOG_DIR/acc_release_early/ (else DIR/acc_release_early/). Exit 77 (skipped) without a GPU, or under
# ctest without WSGEMM_MUTATION=1.
set -u -o pipefail
here=$PWD
cd "$(dirname "$0")/../.." || exit 2
export WSGEMM_TMEM_HB=1 # the report needs the happens-before tracking (off by default)
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIPPED: no GPU (the mutant runs on the emulated path, an sm_90 GPU)"
    exit 77
fi
if [ "${WSGEMM_MUTATION_CTEST:-0}" = 1 ] && [ "${WSGEMM_MUTATION:-0}" != 1 ]; then
    echo "SKIPPED: set WSGEMM_MUTATION=1 to run the mutation checks (minutes of GPU time)"
    exit 77
fi
BUILD="" RUNS=10
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    *) echo "usage: $0 --build DIR [--runs N]" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$BUILD" ] || { echo "usage: $0 --build DIR [--runs N]" >&2; exit 2; }
case $BUILD in /*) ;; *) BUILD=$here/$BUILD ;; esac # given from where the script was called
LOGS=${WSGEMM_LOG_DIR:-$BUILD}/acc_release_early
rm -rf "$LOGS"
mkdir -p "$LOGS"
LOGS=$(cd "$LOGS" && pwd)
. tools/mutation/mutant_build.sh

t=$SECONDS
if ! mutant_base_build "$BUILD" "$LOGS/build.log" test_sm100_emulated gemm_matrix_test || ! mutant_prepare "$BUILD"; then
    tail -30 "$LOGS/build.log"
    echo "acc_release_early: FAIL: the build failed"
    exit 1
fi
MUT=$LOGS/mutant
if ! mutant_build acc_release_early "$MUT"; then
    tail -20 "$MUT"/*.log
    echo "acc_release_early: FAIL: the mutant was not built ($(cat "$MUT/status" 2>/dev/null))"
    exit 1
fi
echo "mutant built in $((SECONDS - t)) s"

verdict=0
for cg in 1 2; do
    caught=0 first=""
    for r in $(seq 1 "$RUNS"); do
        log=$LOGS/run_cg${cg}_$r.log
        timeout 120 "$MUT/test_sm100_emulated" several_tiles "$cg" >"$log" 2>&1
        rc=$?
        rec=$(grep -m1 "emulation checker record: RACE" "$log")
        [ -n "$first" ] || first=$(grep -m1 "emulation checker record:" "$log" | sed 's/^ *//' | cut -c1-150)
        if [ $rc != 0 ] && [[ $rec == *tcgen05.ld* ]] && [[ $rec == *tcgen05.mma* ]]; then
            caught=$((caught + 1))
        else
            echo "cta_group $cg run $r: not reported (exit $rc): $(grep -m3 -E 'TMEM-EMU|checker record|FAIL|PASS' "$log" | cut -c1-200 | tr '\n' ' ')"
        fi
    done
    echo "cta_group $cg: $caught of $RUNS runs reported a RACE naming tcgen05.ld and tcgen05.mma; first record: ${first:-none}"
    [ "$caught" = "$RUNS" ] || verdict=1
done
echo "acc_release_early: $([ $verdict = 0 ] && echo PASS || echo FAIL) ($((SECONDS - t)) s; logs in $LOGS)"
exit $verdict
