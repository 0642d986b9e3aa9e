#!/bin/sh
# scripts/sm90_tune.sh - one call on the H200: build the sm90 path, run its tests, time it against cuBLAS.
#
#   scripts/sm90_tune.sh [tests|tune|all|sanitize] [extra sm90_tune args, e.g. --all or "m n k"]
#
#   tests     configure build/sm90-check (90a, watchdog ON: a stuck barrier wait traps after 10 s and prints
#             barrier, CTA, warp, phase), build, run ctest -L cpu -R sm90 and the GPU matrix
#             (ctest -R sm90_gemm_test: 12 cases, each prints one line per failing problem and a summary).
#   tune      configure build/sm90-tune (Release, watchdog OFF), build sm90_tune, run it: a table per shape and
#             op pair (NN, TN) of sm90 configurations vs cuBLAS at 4096^3 and 8192^3 (add --all for the
#             decode, small-K, unaligned and LLM shapes). The launcher's configuration line (WSGEMM_SM90_DEBUG)
#             goes to stderr.
#   all       tests, then tune (default). Where one command may run only 10 minutes, run `tests` and
#             `tune` as two commands: each builds its own tree (~1-2 min on 16 cores) and runs a few minutes.
#   sanitize  compute-sanitizer memcheck and racecheck on two small cases (slow).
# Logs go to $WSGEMM_LOG_DIR when set, else to ./sm90-logs.
set -u
mode=${1:-all}
[ $# -gt 0 ] && shift
logs=${WSGEMM_LOG_DIR:-./sm90-logs}
mkdir -p "$logs"
jobs=$(nproc 2>/dev/null || echo 8)
gen=""
command -v ninja > /dev/null 2>&1 && gen="-G Ninja"

configure_build() { # dir watchdog targets...
    dir=$1 wd=$2
    shift 2
    cmake -S . -B "$dir" $gen -DCMAKE_BUILD_TYPE=Release -DWSGEMM_CUDA_ARCHS=90a -DWSGEMM_SM100_EMULATION=OFF \
        -DWSGEMM_BUILD_BENCH=OFF -DWSGEMM_PTXAS_VERBOSE=ON -DWSGEMM_WATCHDOG="$wd" > "$logs/$(basename $dir).configure.log" 2>&1 || {
        tail -30 "$logs/$(basename $dir).configure.log"; echo "configure of $dir failed"; return 1; }
    cmake --build "$dir" -j "$jobs" --target "$@" > "$logs/$(basename $dir).build.log" 2>&1 || {
        grep -B2 -A10 -i "error" "$logs/$(basename $dir).build.log" | head -60; echo "build of $dir failed"; return 1; }
    echo "built $* in $dir (log: $logs/$(basename $dir).build.log)"
    grep -c "Compiling entry function '_Z16sm90_gemm_kernel" "$logs/$(basename $dir).build.log" | sed 's/^/  sm90 kernels compiled: /'
    grep "_Z16sm90_gemm_kernel" -A3 "$logs/$(basename $dir).build.log" | grep -E "spill stores" | sort | uniq -c | sed 's/^/  ptxas: /'
    grep -i "C7508" "$logs/$(basename $dir).build.log" && echo "  WARNING: ptxas ignored setmaxnreg"
    return 0
}

run_tests() {
    configure_build build/sm90-check ON sm90_gemm_test sm90_host_test || return 1
    (cd build/sm90-check && ctest -j 4 -R "sm90_host_test|sm90_code_check" --output-on-failure > "$logs/sm90-cpu-tests.log" 2>&1)
    tail -6 "$logs/sm90-cpu-tests.log"
    (cd build/sm90-check && WSGEMM_TEST_VERBOSE=1 ctest -V -R sm90_gemm_test --timeout 300 > "$logs/sm90-gpu-tests.log" 2>&1)
    grep -E "^[0-9]+: (sm90 |FAIL|SKIP)|watchdog|tests passed|Failed|Timeout" "$logs/sm90-gpu-tests.log" | head -80
}

run_tune() {
    configure_build build/sm90-tune OFF sm90_tune sm90_gemm_test || return 1
    # the watchdog build drops setmaxnreg (its report path is a real call), so re-check the release kernels
    (cd build/sm90-tune && ctest -R "sm90_gemm_test\.(ops|odd|smallm|splitk|variants|tmastore)" --timeout 120 \
        --output-on-failure > "$logs/sm90-release-tests.log" 2>&1)
    grep -E "^sm90 |FAIL|tests passed|Failed|Timeout" "$logs/sm90-release-tests.log" | head -40
    ./build/sm90-tune/sm90_tune "$@" 2> "$logs/sm90-tune.stderr.log" | tee "$logs/sm90-tune.log"
    echo "(launcher configuration lines: $logs/sm90-tune.stderr.log)"
    grep -m 12 "wsgemm sm90:" "$logs/sm90-tune.stderr.log"
}

run_sanitize() {
    configure_build build/sm90-check ON sm90_gemm_test || return 1
    for tool in memcheck racecheck; do
        for c in odd splitk; do
            compute-sanitizer --tool $tool ./build/sm90-check/tests/sm90/sm90_gemm_test $c > "$logs/sanitize-$tool-$c.log" 2>&1
            echo "$tool $c: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitize-$tool-$c.log" | tail -1)"
        done
    done
}

case "$mode" in
tests) run_tests ;;
tune) run_tune "$@" ;;
sanitize) run_sanitize ;;
all) run_tests; run_tune "$@" ;;
*) echo "usage: $0 [tests|tune|all|sanitize] [sm90_tune args]"; exit 2 ;;
esac
