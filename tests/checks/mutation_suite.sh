#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/checks/mutation_suite.sh - the protocol mutation suite of the sm100 kernel (ctest sm100_mutation_suite,
# label mutation): every mutant of tools/mutation/mutants.py (an anchored substitution on a COPY of gemm/,
# sync/, tmem/, emu/: a release point, a barrier count, a multicast mask, a missing fence, wait or commit, the
# teardown order, a lane quarter, a descriptor field, the pair's peer signalling, the producer tail, a cluster
# sync) is built for the emulated path (sm_90a) and run against its tests, fastest first, until one kills it.
# Needs an H200 (the emulation runs on compute capability 9.0).
#
#   ctest --preset h200-mutation                      (sets WSGEMM_MUTATION=1; the build of the h200 preset)
#   tests/checks/mutation_suite.sh --build DIR [--only A,B] [--jobs J] [--gpu-jobs G]
#     --build DIR    the emulated build (Ninja, 90a, WSGEMM_SM100_EMULATION on) whose compile and link lines
#                    the mutants reuse; configured and built here when missing (about 3 minutes on 16 cores)
#     --only A,B     these mutants only
#     --jobs J       parallel mutant compiles (default: the number of cores)
#     --gpu-jobs G   mutants tested at the same time (default 6)
#
# A mutant compiles with the barrier watchdog at 20 s (a tracked wait shares the GPU with the other mutants'
# runs, so 3 s fired on the unmutated kernel), so one that deadlocks traps and names its barrier. A test
# kills a mutant when it exits non-zero (77, skipped, does not count); the reason is the emulation checker's
# error name (RACE, MBARRIER_INIT, UNOBSERVED_COMMIT, LANE_QUARTER, BAD_DESC, ...), HANG (the watchdog fired),
# WRONG (results differ from cuBLAS), TIMEOUT, or the exit code. "baseline" (no mutation, the same steps) must
# pass every test, or the matrix is void. A mutant whose expectation is "equivalent: why" may survive; every
# other one must be killed. A missing anchor (the code it mutates changed) fails the suite loudly.
# Output: $WSGEMM_LOG_DIR/mutation/ (else DIR/mutation/): kill_matrix.md, logs/ (each mutation as a diff).
# Exit 0 when the baseline passed and every killable mutant was killed; 77 (skipped) without a GPU, or under
# ctest without WSGEMM_MUTATION=1. Expected time on a 16-core H200 machine: build reused, about 3 minutes of
# compiles (28 copies of the emulated kernel, 16 at a time) and 1-2 minutes of tests.
set -u -o pipefail
here=$PWD
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$self")/../.." || exit 2
export WSGEMM_TMEM_HB=1 # the kills by RACE need the happens-before tracking (off by default)
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIPPED: no GPU (the mutants run on the emulated path, an sm_90 GPU)"
    exit 77
fi
if [ "${WSGEMM_MUTATION_CTEST:-0}" = 1 ] && [ "${WSGEMM_MUTATION:-0}" != 1 ]; then
    echo "SKIPPED: set WSGEMM_MUTATION=1 to run the mutation suite (minutes of GPU time)"
    exit 77
fi
BUILD="" ONLY="" JOBS=$(nproc) GPU_JOBS=6
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --jobs) JOBS=$2; shift ;;
    --gpu-jobs) GPU_JOBS=$2; shift ;;
    *) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$self"; exit 2 ;;
    esac
    shift
done
[ -n "$BUILD" ] || { echo "usage: $0 --build DIR [--only A,B] [--jobs J] [--gpu-jobs G]" >&2; exit 2; }
case $BUILD in /*) ;; *) BUILD=$here/$BUILD ;; esac # given from where the script was called
RESULTS=${WSGEMM_LOG_DIR:-$BUILD}/mutation
WORK=$RESULTS/work
rm -rf "$RESULTS"
mkdir -p "$RESULTS/logs" "$WORK"
RESULTS=$(cd "$RESULTS" && pwd)
WORK=$RESULTS/work
T0=$SECONDS
. tools/mutation/mutant_build.sh

t=$SECONDS
if ! mutant_base_build "$BUILD" "$RESULTS/logs/build.log" test_sm100_emulated gemm_matrix_test || ! mutant_prepare "$BUILD"; then
    tail -30 "$RESULTS/logs/build.log"
    echo "MUTATION SUITE: the build failed"
    exit 1
fi
echo "build: $((SECONDS - t)) s"

# ---------------------------------------------------------------- the mutants and their tests
declare -A EXPECT TESTS
NAMES=()
while IFS=$'\t' read -r name expect tests; do
    if [ -z "$ONLY" ] || [[ ",$ONLY," == *",$name,"* ]]; then
        NAMES+=("$name")
        EXPECT[$name]=$expect
        TESTS[$name]=$tests
    fi
done < <(python3 tools/mutation/mutants.py list)
BASE_TESTS=$(printf '%s\n' "${TESTS[@]}" | tr ',' '\n' | sort -u | tr '\n' ' ')
echo "mutants: ${#NAMES[@]}; baseline tests: $BASE_TESTS"

pool() { while [ "$(jobs -rp | wc -l)" -ge "$1" ]; do sleep 0.2; done; }

# ---------------------------------------------------------------- compile every copy (parallel)
t=$SECONDS
for m in baseline "${NAMES[@]}"; do
    pool "$JOBS"
    mutant_build "$m" "$WORK/$m" &
done
wait
echo "compiled $((${#NAMES[@]} + 1)) copies in $((SECONDS - t)) s with $JOBS jobs"

# ---------------------------------------------------------------- run
# run_test DIR TEST -> the reason it killed (empty: it passed or skipped); log in DIR/TEST.log
run_test() {
    local d=$1 tst=$2 log=$1/$2.log rc
    timeout 120 "$d/test_sm100_emulated" "$tst" >"$log" 2>&1
    rc=$?
    [ $rc = 0 ] || [ $rc = 77 ] && return 0
    if grep -q "wsgemm watchdog" "$log"; then echo HANG
    elif grep -qoE "(checker record|TMEM-EMU ERROR):? [A-Z_]+" "$log"; then
        grep -m1 -oE "(checker record|TMEM-EMU ERROR):? [A-Z_]+" "$log" | awk '{print $NF}'
    elif [ $rc = 124 ]; then echo TIMEOUT
    elif grep -q "mismatch" "$log"; then echo WRONG
    else echo "exit $rc"; fi
}
# judge MUTANT: its tests in order until one kills it; writes DIR/verdict "test|reason|seconds" (or "-|survived|s")
judge() {
    local m=$1 d=$WORK/$1 t=$SECONDS tst why
    for tst in ${TESTS[$m]//,/ }; do
        why=$(run_test "$d" "$tst")
        if [ -n "$why" ]; then
            echo "$tst|$why|$((SECONDS - t))" >"$d/verdict"
            return
        fi
    done
    echo "-|survived|$((SECONDS - t))" >"$d/verdict"
}
t=$SECONDS
base_ok=1
if [ "$(cat "$WORK/baseline/status" 2>/dev/null)" = ok ]; then
    for tst in $BASE_TESTS; do
        pool "$GPU_JOBS"
        ( why=$(run_test "$WORK/baseline" "$tst"); [ -z "$why" ] || echo "$tst: $why" >>"$WORK/baseline/failed" ) &
    done
    wait
    [ -s "$WORK/baseline/failed" ] && base_ok=0
else
    base_ok=0
fi
for m in "${NAMES[@]}"; do
    [ "$(cat "$WORK/$m/status" 2>/dev/null)" = ok ] || continue
    pool "$GPU_JOBS"
    judge "$m" &
done
wait
echo "tests: $((SECONDS - t)) s"

# ---------------------------------------------------------------- the kill matrix
bad=0 killed=0 equivalent=0
{
    echo "Kill matrix ($(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo
    if [ $base_ok = 1 ]; then echo "baseline (no mutation): passed $BASE_TESTS"
    else echo "baseline (no mutation): FAILED ($(cat "$WORK/baseline/status" 2>/dev/null); $(tr '\n' ';' <"$WORK/baseline/failed" 2>/dev/null)): the matrix is void"; fi
    echo
    echo "| mutant | expectation | tests (in order) | killed by | reason | s |"
    echo "| --- | --- | --- | --- | --- | --- |"
    for m in "${NAMES[@]}"; do
        d=$WORK/$m
        status=$(cat "$d/status" 2>/dev/null || echo "not built")
        exp=${EXPECT[$m]}
        short=${exp%%:*}
        if [ "$status" != ok ]; then
            echo "| $m | $short | ${TESTS[$m]} | - | $status | - |"
            bad=$((bad + 1))
            continue
        fi
        IFS='|' read -r by why secs <"$d/verdict"
        echo "| $m | $short | ${TESTS[$m]} | $by | $why | $secs |"
        if [ "$why" = survived ]; then
            if [ "$short" = equivalent ]; then equivalent=$((equivalent + 1)); else bad=$((bad + 1)); fi
        else
            killed=$((killed + 1))
        fi
    done
    echo
    for m in "${NAMES[@]}"; do
        [ "${EXPECT[$m]%%:*}" = equivalent ] && echo "- $m: ${EXPECT[$m]}"
    done
} >"$RESULTS/kill_matrix.md"
cat "$RESULTS/kill_matrix.md"
for d in "$WORK"/*/; do # keep the logs and each mutation as a diff; drop the copies and binaries
    n=$(basename "$d")
    mkdir -p "$RESULTS/logs/$n"
    cp "$d"/*.log "$d"/status "$d"/verdict "$d"/failed "$RESULTS/logs/$n/" 2>/dev/null
    for part in $MUTANT_SOURCE_DIRS; do [ "$part" = include ] || diff -ru "$part" "$d/src/$part"; done >"$RESULTS/logs/$n/mutation.diff" 2>/dev/null
done
rm -rf "$WORK"
echo
echo "MUTATION SUITE: ${#NAMES[@]} mutants, $killed killed, $equivalent equivalent survived, $bad not killed or not built; baseline $([ $base_ok = 1 ] && echo passed || echo FAILED); $((SECONDS - T0)) s"
[ $base_ok = 1 ] && [ $bad = 0 ]
