#!/usr/bin/env bash
# mutation_suite.sh - plant each protocol bug of scripts/mutants/*.patch into a copy of the sm100 kernel and
# sync/ sources, build the emulated kernel of that copy, run the emulated test suite against it, and write
# the kill matrix (mutant x the tests that killed it) as markdown. Needs a GPU (an H200: the emulated path
# runs on compute capability 9.0) and a built tree with the emulated path: cmake --preset h200 &&
# cmake --build --preset h200.
#
#   scripts/mutation_suite.sh [--build DIR] [--only A,B] [--tests T1,T2] [--repeat N] [--jobs J]
#                             [--first-kill] [--compile-only] [--check-apply]
#     --build DIR     the built tree (default build/h200); its ninja commands give the exact compile and link
#                     lines, so each mutant is built like the library's own emulated object
#     --only A,B      these mutants only (names = patch file names)
#     --tests T1,T2   these tests only (names as in the matrix: several_tiles, matrix.shapes, ...)
#     --repeat N      run each (mutant, test) N times; the matrix shows kills as k/N (default 1)
#     --jobs J        parallel compiles and test processes (default: the number of cores)
#     --first-kill    stop running a mutant's tests once one killed it (faster; the matrix then lists one)
#     --compile-only  apply and compile every mutant, no link, no GPU (works with any build that has 90a)
#     --check-apply   only check that every patch applies to a copy of the sources
#
# Each mutant object is compiled with the barrier watchdog on (3 s), so a mutant that deadlocks traps instead
# of hanging, and linked into private copies of test_sm100_emulated and gemm_matrix_test: the object comes
# before libwsgemm.a on the link line, so the library's own emulated kernel is not pulled in. "baseline" is the
# unmutated source through the same steps and must pass every test, or the matrix is void. A test kills a
# mutant when it exits non-zero (77 = skipped does not count); the reason is the emulation checker's error name
# (RACE, MBARRIER_INIT, LANE_QUARTER, ...), HANG (the watchdog fired), WRONG (results differ from cuBLAS),
# CUDA_ERROR (a trap without a checker record), NONDETERMINISTIC (a rerun differs), or the exit code. A mutant marked "equivalent" or "gap" in its patch header is expected to survive; every other
# one must be killed. Output: $OUT/mutation/ (or build/mutation/): kill_matrix.md, summary.txt, logs. Exit 0
# when every killable mutant was killed and the baseline passed. As a ctest entry (label gpu):
# WSGEMM_MUTATION=1 ctest --test-dir build/h200 -R sm100_mutation_suite (skipped without that variable).
set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
if [ "${WSGEMM_MUTATION_CTEST:-0}" = 1 ]; then # as the ctest entry sm100_mutation_suite
    [ "${WSGEMM_MUTATION:-0}" = 1 ] || { echo "SKIPPED: set WSGEMM_MUTATION=1 to run the mutation suite (minutes)"; exit 77; }
    nvidia-smi -L >/dev/null 2>&1 || { echo "SKIPPED: no GPU"; exit 77; }
fi
BUILD=build/h200 ONLY="" TESTS="" REPEAT=1 JOBS=$(nproc) FIRST_KILL=0 MODE=full
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --tests) TESTS=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --jobs) JOBS=$2; shift ;;
    --first-kill) FIRST_KILL=1 ;;
    --compile-only) MODE=compile ;;
    --check-apply) MODE=apply ;;
    *) sed -n '2,35p' "$0"; exit 2 ;;
    esac
    shift
done
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { [ $MODE = apply ] || { echo "no build directory (--build)"; exit 2; }; }
RESULTS=${OUT:-$ROOT/build}/mutation
WORK=${MUTATION_WORK:-/tmp/wsgemm-mutation}
rm -rf "$RESULTS" "$WORK"
mkdir -p "$RESULTS/logs" "$WORK"
T0=$SECONDS

# ---------------------------------------------------------------- the mutants and the tests
MUTANTS=(baseline)
for p in scripts/mutants/*.patch; do
    n=$(basename "$p" .patch)
    if [ -z "$ONLY" ] || [[ ",$ONLY," == *",$n,"* ]]; then MUTANTS+=("$n"); fi
done
header() { sed -n "s/^# $2: //p" "scripts/mutants/$1.patch"; } # mutant, field
# test name -> command (binary placeholders resolved per mutant)
ALL_TESTS=(ops_cg1 ops_cg2 odd_shapes batch alpha_beta types more_ctas_than_tiles several_tiles padded_ld no_leak
           matrix.shapes matrix.ops matrix.types matrix.batch matrix.alpha_beta matrix.leading_dims)
RUN_TESTS=()
for t in "${ALL_TESTS[@]}"; do
    if [ -z "$TESTS" ] || [[ ",$TESTS," == *",$t,"* ]]; then RUN_TESTS+=("$t"); fi
done
test_cmd() { # mutant dir, test
    case $2 in
    matrix.*) echo "$1/gemm_matrix_test ${2#matrix.} sm100-emulated" ;;
    *) echo "$1/test_sm100_emulated $2" ;;
    esac
}

pool() { while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done; }

# ---------------------------------------------------------------- 1. copies + patches
for m in "${MUTANTS[@]}"; do
    d=$WORK/$m
    mkdir -p "$d/src"
    cp -r gemm sync tmem include "$d/src/"
    if [ "$m" != baseline ] &&
        ! patch -p1 -s --no-backup-if-mismatch -d "$d/src" <"scripts/mutants/$m.patch" >"$d/patch.log" 2>&1; then
        echo "DOES-NOT-APPLY" >"$d/status"
    fi
done
bad_apply=$(grep -l DOES-NOT-APPLY "$WORK"/*/status 2>/dev/null | wc -l)
echo "mutants: $((${#MUTANTS[@]} - 1)) (+ baseline); patches that do not apply: $bad_apply"
if [ "$bad_apply" -gt 0 ]; then
    for f in $(grep -l DOES-NOT-APPLY "$WORK"/*/status); do echo "  $(basename "$(dirname "$f")")"; cat "$(dirname "$f")/patch.log"; done
fi
[ $MODE = apply ] && exit $((bad_apply > 0))

# ---------------------------------------------------------------- 2. compile (parallel)
OBJ_TARGET=$(ninja -C "$BUILD" -t targets all | grep -o '^[^:]*wsgemm_sm100_emu\.dir/[^:]*sm100_gemm\.cu\.o' | head -1)
[ -n "$OBJ_TARGET" ] || { echo "no emulated sm100 object in $BUILD (configure with 90a and WSGEMM_SM100_EMULATION=ON)"; exit 2; }
COMPILE=$(ninja -C "$BUILD" -t commands "$OBJ_TARGET" | tail -1)
compile_one() { # mutant
    local d=$WORK/$1 c
    c=$(printf '%s' "$COMPILE" | sed -e "s# -I$ROOT/# -I$d/src/#g" -e "s# -I$ROOT # -I$d/src #g" \
        -e "s# $ROOT/gemm/sm100/sm100_gemm.cu # $d/src/gemm/sm100/sm100_gemm.cu #" \
        -e "s# -MD -MT [^ ]* -MF [^ ]*##" -e "s# -o [^ ]*\$# -o $d/sm100_gemm.o#")
    c="$c -DWSGEMM_WATCHDOG=1 -DWSGEMM_WATCHDOG_NS=3000000000ull"
    local t=$SECONDS
    if (cd "$BUILD" && sh -c "$c") >"$d/compile.log" 2>&1; then
        echo "$((SECONDS - t))" >"$d/compile_s"
    else
        echo "DOES-NOT-COMPILE" >"$d/status"
    fi
}
t=$SECONDS
for m in "${MUTANTS[@]}"; do
    [ -e "$WORK/$m/status" ] && continue
    pool
    compile_one "$m" &
done
wait
bad_compile=$(grep -l DOES-NOT-COMPILE "$WORK"/*/status 2>/dev/null | wc -l)
echo "compiled in $((SECONDS - t)) s with $JOBS jobs (per mutant: $(cat "$WORK"/*/compile_s 2>/dev/null | sort -n | tr '\n' ' ')s); do not compile: $bad_compile"
for f in $(grep -l DOES-NOT-COMPILE "$WORK"/*/status 2>/dev/null); do
    echo "  $(basename "$(dirname "$f")")"; grep -m5 -E "error" "$(dirname "$f")/compile.log"
done
[ $MODE = compile ] && exit $((bad_compile + bad_apply > 0))

# ---------------------------------------------------------------- 3. link private test binaries
link_cmd() { # ninja target, output, mutant object
    ninja -C "$BUILD" -t commands "$1" | tail -1 |
        sed -e "s# -o $1 # -o $2 #" -e "s# libwsgemm\.a # $3 libwsgemm.a #"
}
LINK_SM100=$(link_cmd tests/sm100/test_sm100_emulated @OUT@ @OBJ@)
LINK_MATRIX=$(link_cmd tests/generic/gemm_matrix_test @OUT@ @OBJ@)
for m in "${MUTANTS[@]}"; do
    d=$WORK/$m
    [ -e "$d/status" ] && continue
    pool
    (
        for pair in "test_sm100_emulated|$LINK_SM100" "gemm_matrix_test|$LINK_MATRIX"; do
            out=${pair%%|*}
            c=${pair#*|}
            c=${c//@OUT@/$d/$out}
            c=${c//@OBJ@/$d/sm100_gemm.o}
            (cd "$BUILD" && sh -c "$c") >>"$d/link.log" 2>&1 || echo "DOES-NOT-LINK" >"$d/status"
        done
    ) &
done
wait

# ---------------------------------------------------------------- 4. run the tests
reason() { # log, exit code
    local r
    r=$(grep -o -m1 -E "TMEM-EMU ERROR [A-Z_]+" "$1" | awk '{print $3}')
    [ -n "$r" ] && { echo "$r"; return; }
    r=$(grep -o -m1 -E "checker record: [A-Z_]+" "$1" | awk '{print $3}')
    [ -n "$r" ] && [ "$r" != none ] && { echo "$r"; return; }
    grep -q "wsgemm watchdog" "$1" && { echo HANG; return; }
    [ "$2" = 124 ] && { echo TIMEOUT; return; }
    grep -q "did not reproduce the first bit for bit" "$1" && { echo NONDETERMINISTIC; return; }
    grep -qE "^FAIL .*: status" "$1" && { echo CUDA_ERROR; return; }
    grep -qE "^FAIL path=|mismatch" "$1" && { echo WRONG; return; }
    echo "exit $2"
}
run_one() { # mutant, test, repetition
    local d=$WORK/$1 log=$WORK/$1/run_$2_$3.log t=$SECONDS rc
    if [ $FIRST_KILL = 1 ] && [ -e "$d/killed" ]; then return; fi
    # shellcheck disable=SC2046
    timeout 240 $(test_cmd "$d" "$2") >"$log" 2>&1
    rc=$?
    if [ $rc = 0 ] || [ $rc = 77 ]; then
        echo "pass $((SECONDS - t))" >"$d/res_$2_$3"
    else
        echo "kill $((SECONDS - t)) $(reason "$log" $rc)" >"$d/res_$2_$3"
        touch "$d/killed"
    fi
}
t=$SECONDS
for rep in $(seq 1 "$REPEAT"); do
    for tst in "${RUN_TESTS[@]}"; do
        for m in "${MUTANTS[@]}"; do
            [ -e "$WORK/$m/status" ] && continue
            pool
            run_one "$m" "$tst" "$rep" &
        done
    done
done
wait
echo "ran ${#RUN_TESTS[@]} tests x $REPEAT on $((${#MUTANTS[@]})) builds in $((SECONDS - t)) s"

# ---------------------------------------------------------------- 5. the kill matrix
md=$RESULTS/kill_matrix.md
fails=0
{
    echo "# Protocol mutation suite: kill matrix"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)," \
         "build $BUILD, $REPEAT run(s) per test, $JOBS jobs, $((SECONDS - T0)) s in all."
    echo
    echo "| mutant | class | expected | result | killed by (test: reason, kills/runs) |"
    echo "| --- | --- | --- | --- | --- |"
} >"$md"
for m in "${MUTANTS[@]}"; do
    d=$WORK/$m
    if [ "$m" = baseline ]; then cls="(unmutated)" exp="passes"; else cls=$(header "$m" class) exp=$(header "$m" expect); fi
    killers="" result=""
    if [ -e "$d/status" ]; then
        result=$(cat "$d/status")
    else
        for tst in "${RUN_TESTS[@]}"; do
            k=0 n=0 why=""
            for rep in $(seq 1 "$REPEAT"); do
                f=$d/res_${tst}_$rep
                [ -e "$f" ] || continue
                n=$((n + 1))
                if read -r what _ r <"$f" && [ "$what" = kill ]; then k=$((k + 1)); why=$r; fi
            done
            [ $k -gt 0 ] && killers="$killers${killers:+; }$tst: $why, $k/$n"
        done
        if [ "$m" = baseline ]; then
            result=$([ -z "$killers" ] && echo "passes" || echo "FAILS")
        elif [ -n "$killers" ]; then
            result=killed
        else
            result=survived
        fi
    fi
    ok=1
    case "$m:$result:$exp" in
    baseline:passes:*) ;;
    baseline:*) ok=0 ;;
    *:killed:killed) ;;
    *:survived:equivalent | *:survived:gap) result="survived (expected: $exp)" ;;
    *:killed:*) result="killed (listed as $exp: review)" ;;
    *) ok=0 ;;
    esac
    [ $ok = 1 ] || { fails=$((fails + 1)); result="**$result**"; }
    echo "| $m | $cls | $exp | $result | ${killers:--} |" >>"$md"
done
{
    echo
    echo "Why each mutant is killed, or why it may survive:"
    echo
    for m in "${MUTANTS[@]}"; do
        [ "$m" = baseline ] && continue
        echo "- \`$m\`: $(header "$m" why)"
    done
} >>"$md"
for m in "${MUTANTS[@]}"; do
    mkdir -p "$RESULTS/logs/$m"
    cp "$WORK/$m"/*.log "$WORK/$m"/res_* "$WORK/$m"/status "$WORK/$m"/compile_s "$RESULTS/logs/$m/" 2>/dev/null
done
cat "$md"
echo "mutation suite: $fails unexpected result(s) (baseline failing, a killable mutant surviving, or a build step failing); $((SECONDS - T0)) s" |
    tee "$RESULTS/summary.txt"
[ $fails = 0 ]
