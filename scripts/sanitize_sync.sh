#!/usr/bin/env bash
# sanitize_sync.sh [build-dir] - the sync/ GPU tests under compute-sanitizer synccheck, racecheck and
# memcheck, with sizes small enough that each run finishes in well under a minute under the tool.
# Needs a GPU (sm_90a) and a build with the tests (e.g. cmake -S . -B build -G Ninja
# -DWSGEMM_CUDA_ARCHS=90a && cmake --build build --target sync_ring_stress sync_dealloc_barrier).
# Prints one line per run and exits non-zero if any run failed or reported an error.
# (The watchdog negative test and teardown_emu's early_dealloc_caught trap on purpose and are not run
# under the sanitizers.)
set -u
BUILD=${1:-build}
T=$BUILD/tests/sync
SAN=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$SAN" >/dev/null || SAN=/usr/local/cuda/bin/compute-sanitizer
fails=0
run() { # tool, command...
    local tool=$1; shift
    local t0=$SECONDS
    if "$SAN" --tool "$tool" --error-exitcode 99 --print-limit 20 "$@" > /tmp/sanitize_sync.$$.log 2>&1; then
        echo "ok    $tool $* ($((SECONDS - t0)) s): $(grep -E 'PASS|ERROR SUMMARY|RACECHECK SUMMARY' /tmp/sanitize_sync.$$.log | tr '\n' ' ')"
    else
        echo "FAIL  $tool $* ($((SECONDS - t0)) s):"; sed 's/^/      /' /tmp/sanitize_sync.$$.log | tail -40
        fails=$((fails + 1))
    fi
}
for tool in synccheck racecheck memcheck; do
    # ring: 4 and 1 stages, 2000 iterations (ring phases) per CTA, seed 7, 4 CTAs
    run $tool "$T/sync_ring_stress" stages4 2000 7 4
    run $tool "$T/sync_ring_stress" stages1 2000 7 4
    # dealloc barrier: 50 rounds, seed 7, 4 CTAs (cta_group 2: 2 clusters of 2)
    run $tool "$T/sync_dealloc_barrier" cg1_spin 50 7 4
    run $tool "$T/sync_dealloc_barrier" cg1_ticks 50 7 4
    run $tool "$T/sync_dealloc_barrier" cg2_spin 50 7 4
    run $tool "$T/sync_dealloc_barrier" cg2_ticks 50 7 4
    # teardown against the TMEM emulation (only built when tmem/tmem.cuh is in the tree): 2 launches, 4 CTAs
    if [ -x "$T/sync_teardown_emu" ]; then
        run $tool "$T/sync_teardown_emu" cg1 2 7 4
        run $tool "$T/sync_teardown_emu" cg2 2 7 4
    fi
done
rm -f /tmp/sanitize_sync.$$.log
echo "sanitize_sync: $fails failed run(s)"
exit $((fails > 0))
