# SPDX-License-Identifier: MIT
# tools/mutation/mutant_build.sh - sourced by the mutation checks (tests/checks/mutation_suite.sh,
# tests/checks/mutant_acc_release_early.sh): build the emulated sm100 kernel of a mutated COPY of the sources
# into private test binaries, reusing a configured and built tree.
#
#   mutant_prepare BUILD           read the compile line of the emulated sm100 object and the link lines of
#                                  test_sm100_emulated and gemm_matrix_test from BUILD's ninja files
#   mutant_build NAME DIR          copy gemm/ sync/ tmem/ emu/ (where it exists) include/ to DIR/src, apply
#                                  mutant NAME there (tools/mutation/mutants.py; "baseline" = no change),
#                                  compile DIR/sm100_emu.o with the barrier watchdog on (20 s: a mutant that
#                                  deadlocks traps instead of hanging), link DIR/test_sm100_emulated and
#                                  DIR/gemm_matrix_test. Writes DIR/status (ok, ANCHOR-MISSING,
#                                  DOES-NOT-COMPILE, DOES-NOT-LINK) and logs.
#   mutant_base_build BUILD LOG TARGET...
#                                  configure BUILD for the emulated path (sm_90a only, Release, no benchmarks or
#                                  tools) unless it is configured, and build TARGETs with every core (an
#                                  existing build is brought up to date, which is quick); MUTANT_CMAKE_ARGS, when
#                                  set, are added to the configuration (an existing BUILD is configured again)
#   MUTANT_SOURCE_DIRS             the source folders a copy holds (the compile line's include paths point
#                                  into them)
# The mutant object comes before libwsgemm_verify.a (the tests' library, which holds the emulated kernel) on the
# link line, so the library's own emulated kernel (which defines the same symbols) is not pulled in; everything
# else is the library as built. BUILD must be a Ninja build (the compile and link lines are read from it).
MUTANT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# emu/ holds the emulator's headers where the tree has it; older trees keep them in tmem/
MUTANT_SOURCE_DIRS="gemm sync tmem include"
[ -d "$MUTANT_ROOT/emu" ] && MUTANT_SOURCE_DIRS="gemm sync tmem emu include"

mutant_prepare() { # BUILD
    MUTANT_BUILD=$(cd "$1" && pwd) || return 2
    local obj
    obj=$(ninja -C "$MUTANT_BUILD" -t targets all | grep -o '^[^:]*wsgemm_sm100_emu\.dir/[^:]*sm100_launch\.cu\.o' | head -1)
    [ -n "$obj" ] || { echo "no emulated sm100 object in $MUTANT_BUILD (configure with 90a and WSGEMM_SM100_EMULATION=ON)"; return 2; }
    MUTANT_COMPILE=$(ninja -C "$MUTANT_BUILD" -t commands "$obj" | tail -1)
    MUTANT_LINK_SM100=$(ninja -C "$MUTANT_BUILD" -t commands tests/sm100/test_sm100_emulated | tail -1)
    MUTANT_LINK_MATRIX=$(ninja -C "$MUTANT_BUILD" -t commands tests/generic/gemm_matrix_test | tail -1)
}

mutant_build() { # NAME DIR
    local name=$1 d=$2 c t
    rm -rf "$d"
    mkdir -p "$d/src"
    for part in $MUTANT_SOURCE_DIRS; do cp -r "$MUTANT_ROOT/$part" "$d/src/"; done
    if [ "$name" != baseline ] && ! python3 "$MUTANT_ROOT/tools/mutation/mutants.py" apply "$name" "$d/src" >"$d/apply.log" 2>&1; then
        echo ANCHOR-MISSING >"$d/status"
        return 1
    fi
    c=$(printf '%s' "$MUTANT_COMPILE" | sed -e "s# -I$MUTANT_ROOT/# -I$d/src/#g" -e "s# -I$MUTANT_ROOT # -I$d/src #g" \
        -e "s# $MUTANT_ROOT/gemm/sm100/sm100_launch.cu # $d/src/gemm/sm100/sm100_launch.cu #" \
        -e "s# -MD -MT [^ ]* -MF [^ ]*##" -e "s# -o [^ ]*\$# -o $d/sm100_emu.o#" \
        -e "s# -DWSGEMM_WATCHDOG_NS=[0-9a-z]*##g" -e "s# -DWSGEMM_WATCHDOG_TRAP_NS=[0-9a-z]*##g")
    c="$c -DWSGEMM_WATCHDOG=1 -DWSGEMM_WATCHDOG_NS=20000000000ull -DWSGEMM_WATCHDOG_TRAP_NS=20000000000ull"
    t=$SECONDS
    if ! (cd "$MUTANT_BUILD" && sh -c "$c") >"$d/compile.log" 2>&1; then
        echo DOES-NOT-COMPILE >"$d/status"
        return 1
    fi
    echo $((SECONDS - t)) >"$d/compile_s"
    for pair in "tests/sm100/test_sm100_emulated|test_sm100_emulated|$MUTANT_LINK_SM100" \
                "tests/generic/gemm_matrix_test|gemm_matrix_test|$MUTANT_LINK_MATRIX"; do
        local target=${pair%%|*} rest=${pair#*|}
        local out=${rest%%|*} link=${rest#*|}
        link=$(printf '%s' "$link" | sed -e "s# -o $target # -o $d/$out #" -e "s# libwsgemm_verify\.a # $d/sm100_emu.o libwsgemm_verify.a #")
        if ! (cd "$MUTANT_BUILD" && sh -c "$link") >>"$d/link.log" 2>&1; then
            echo DOES-NOT-LINK >"$d/status"
            return 1
        fi
    done
    echo ok >"$d/status"
}

mutant_base_build() { # BUILD LOG TARGET...
    local build=$1 log=$2
    shift 2
    if [ ! -f "$build/build.ninja" ] || [ -n "${MUTANT_CMAKE_ARGS:-}" ]; then
        # shellcheck disable=SC2086 # MUTANT_CMAKE_ARGS is a list of -D options
        cmake -S "$MUTANT_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWSGEMM_CUDA_ARCHS=90a \
            -DWSGEMM_BUILD_BENCH=OFF -DWSGEMM_BUILD_TOOLS=OFF ${MUTANT_CMAKE_ARGS:-} >"$log" 2>&1 || return 1
    fi
    cmake --build "$build" -j "$(nproc)" --target "$@" >>"$log" 2>&1
}
