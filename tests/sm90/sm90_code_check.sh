#!/bin/sh
# SPDX-License-Identifier: MIT
# sm90_code_check.sh - CPU tests: does the sm90 kernel compile to what we think it does? One ctest entry per
# shard of the kernel table checked (they compile side by side under ctest -j), and one entry for the SASS.
#
#   sm90_code_check.sh ptxas <inst> <nvcc> <repo root> <work dir>
#       compiles shard <inst> of the kernel table (gemm/sm90/sm90_kernels.def: sm90_shard.cu with
#       SM90_SHARD_<inst>) to PTX and that PTX to a cubin with the ptxas report (the two steps of
#       `nvcc -cubin`, taken one at a time so that one compile gives both), and checks: the report names
#       sm90_gemm_kernel; every function reports 0 spill bytes and 0 stack; ptxas did not ignore
#       setmaxnreg (warning C7508 / "setmaxnreg ignored") and neither serialized wgmmas nor injected fences or
#       waits for them (C7509-C7529); every sm90_gemm_kernel is allocated 168 registers. For bf16_n256 (the
#       default kernels) also: wgmma.mma_async, setmaxnreg.inc/.dec, TMA multicast and stmatrix (the
#       deferred epilogue) present in the PTX. The shards checked (tests/sm90/CMakeLists.txt): bf16_n256,
#       bf16_n256_tuning (the tuning variants), bf16_n192 (the 128 x 192 tile), bf16_staged (the STAGED
#       epilogue's kernels), bf16_pingpong (the pingpong schedule's), bf16_fused (wsgemm_matmul's fused ops),
#       e4m3 (the FP8 kernels, plain and fused), e4m3_block and e4m3_block_cols (the block-scaled FP8
#       kernels). Leaves <work dir>/<inst>/sm90.cubin for the sass entry.
#       <inst> = grouped: the grouped GEMM's kernels instead (gemm/sm90/sm90_grouped.cu, every row of
#       sm90_grouped_kernels.def), the same ptxas checks on sm90_grouped_kernel, their wgmma shapes and
#       setmaxnreg in the PTX, and (with python3) tests/pdl/pdl_order_check.py on that PTX: no global access,
#       the sizes included, before griddepcontrol.wait, launch_dependents present.
#   sm90_code_check.sh sass <work dir> [cuobjdump]
#       disassembles the bf16_n256 cubin and checks for HGMMA (the wgmma tensor-core instruction),
#       USETMAXREG, UTMALDG and STSM, and no local-memory traffic (LDL/STL: the packed tile of the deferred
#       epilogue must stay in registers); and the e4m3 cubin: QGMMA in groups of four with one wait each (none
#       serialized), no LDL/STL. The two cubins come from the ptxas entries of those files (ctest fixtures).
#       Exit 77 (skipped) when no cuobjdump is found (pip install nvidia-cuda-cuobjdump provides one).
# nvcc's temporary files go to $TMPDIR (ctest gives each entry its own, under the build tree).
# Prints what it checked; exits 1 on the first failed check.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${TMPDIR:-}" ] && mkdir -p "$TMPDIR"
mode=${1:-}

if [ "$mode" = ptxas ]; then
    inst=$2 nvcc=$3 root=$4 work=$5/$2
    mkdir -p "$work"
    src="$root/gemm/sm90/sm90_shard.cu" # the rows of shard <inst> of sm90_kernels.def
    kernel=_Z16sm90_gemm_kernel
    flags="-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I$root/include -I$root -I$root/gemm"
    if [ "$inst" = grouped ]; then
        src="$root/gemm/sm90/sm90_grouped.cu" # the rows of sm90_grouped_kernels.def
        kernel=_Z19sm90_grouped_kernel
    else
        flags="$flags -DSM90_SHARD_$inst=SM90_PROBE()"
    fi
    log="$work/ptxas.log"
    rm -f "$work/sm90.ptx" "$work/sm90.cubin"
    "$nvcc" $flags -ptx "$src" -o "$work/sm90.ptx" || fail "nvcc -ptx of the $inst kernels failed"
    if [ "$inst" = bf16_n256 ]; then
        for pat in "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16" "setmaxnreg.dec.sync.aligned.u32 40" \
                   "setmaxnreg.inc.sync.aligned.u32 232" "multicast::cluster" "wgmma.wait_group.sync.aligned 1" \
                   "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group" \
                   "stmatrix.sync.aligned.m8n8.x4.shared.b16"; do
            n=$(grep -c "$pat" "$work/sm90.ptx")
            [ "$n" -gt 0 ] || fail "PTX lacks '$pat'"
            echo "ok: PTX has '$pat' ($n lines)"
        done
    fi
    if [ "$inst" = grouped ]; then
        for pat in "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16" \
                   "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" \
                   "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16" \
                   "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" "setmaxnreg.dec.sync.aligned.u32 40" \
                   "setmaxnreg.inc.sync.aligned.u32 232" "wgmma.wait_group.sync.aligned 1" "griddepcontrol.wait" \
                   "griddepcontrol.launch_dependents"; do
            n=$(grep -c "$pat" "$work/sm90.ptx")
            [ "$n" -gt 0 ] || fail "PTX lacks '$pat'"
            echo "ok: PTX has '$pat' ($n lines)"
        done
        if command -v python3 > /dev/null 2>&1; then
            python3 "$root/tests/pdl/pdl_order_check.py" "$work/sm90.ptx" ||
                fail "the grouped kernels touch global memory before griddepcontrol.wait"
            echo "ok: no global access before griddepcontrol.wait (pdl_order_check.py)"
        fi
    fi
    "$nvcc" $flags -cubin -Xptxas -v "$work/sm90.ptx" -o "$work/sm90.cubin" > "$log" 2>&1 ||
        { cat "$log"; fail "ptxas of the $inst kernels failed"; }
    kernels=$(grep -c "Compiling entry function '$kernel" "$log")
    [ "$kernels" -gt 0 ] || fail "ptxas report of $inst names no $kernel"
    spills=$(grep "spill stores" "$log" | grep -vc "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads")
    [ "$spills" -eq 0 ] && echo "ok: $inst: $kernels kernels, all with 0 bytes stack, 0 spill stores, 0 spill loads" \
        || { grep "spill" "$log"; fail "$spills functions spill or use a stack frame"; }
    if grep -qi "C7508\|setmaxnreg.*ignored" "$log"; then
        grep -i "C7508\|setmaxnreg" "$log"; fail "ptxas ignored setmaxnreg"
    fi
    echo "ok: no setmaxnreg warning (C7508)"
    # ptxas's wgmma pipeline notes: serialized wgmmas (C7514, C7515, ...) or fences and waits it had to inject
    # (C7517, C7519) mean a kernel no longer keeps its accumulators out of reach of other instructions while
    # its wgmmas run (the FP8 kernels' two buffers are the delicate case, sm90_fp8_unit)
    if grep -qE "\(C75(09|1[0-9]|2[0-9])\)" "$log"; then
        grep -E "\(C75(09|1[0-9]|2[0-9])\)" "$log" | head -5; fail "ptxas serialized or fenced wgmmas"
    fi
    echo "ok: no wgmma serialized, no fence or wait injected by ptxas (C7509-C7529)"
    # setmaxnreg moves registers inside the CTA's allocation: 40 x 128 + 232 x 256 = 168 x 384 exactly, so
    # every kernel must be allocated the launch-bounds cap of 168 (ptxas does so when it keeps setmaxnreg;
    # a kernel with fewer would hang in setmaxnreg.inc).
    regs=$(grep -A4 "Compiling entry function '$kernel" "$log" | grep -o "Used [0-9]* registers" | sort -u)
    [ "$regs" = "Used 168 registers" ] || fail "sm90 kernels must use exactly 168 registers (setmaxnreg arithmetic); got: $regs"
    echo "ok: every kernel is allocated 168 registers (40 x 128 + 232 x 256 = 168 x 384)"
    echo "PASS"
    exit 0
fi

if [ "$mode" = sass ]; then
    work=$2 cuobjdump=${3:-}
    if [ -z "$cuobjdump" ] || [ ! -x "$cuobjdump" ]; then
        cuobjdump=$(command -v cuobjdump 2>/dev/null || true)
    fi
    if [ -z "$cuobjdump" ]; then
        for c in $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, "cu13/bin/cuobjdump") for p in nvidia.__path__))' 2>/dev/null); do
            [ -x "$c" ] && cuobjdump=$c
        done
    fi
    [ -n "$cuobjdump" ] || { echo "SKIPPED: no cuobjdump (pip install nvidia-cuda-cuobjdump)"; exit 77; }
    for inst in bf16_n256 e4m3; do
        [ -f "$work/$inst/sm90.cubin" ] || fail "no $work/$inst/sm90.cubin: the entry sm90_code_check.$inst makes it"
    done
    "$cuobjdump" -sass "$work/bf16_n256/sm90.cubin" > "$work/sm90.sass" 2>&1 || fail "$cuobjdump -sass failed"
    for pat in "HGMMA.64x256x16.F32.BF16" "USETMAXREG.DEALLOC" "USETMAXREG.TRY_ALLOC" "UTMALDG.3D.MULTICAST" \
               "STSM.16.M88.4"; do
        n=$(grep -c "$pat" "$work/sm90.sass")
        [ "$n" -gt 0 ] || fail "SASS lacks $pat"
        echo "ok: SASS has $pat ($n)"
    done
    n=$(grep -cE "[[:space:]](LDL|STL)(\.|[[:space:]])" "$work/sm90.sass")
    [ "$n" -eq 0 ] || fail "SASS has $n local-memory instructions (LDL/STL)"
    echo "ok: no LDL/STL"
    # the FP8 kernels: QGMMA, in commit groups of four that each wait once (gsb0 on the group's last), none
    # serialized (a gsb0 on every one), and no local memory
    "$cuobjdump" -sass "$work/e4m3/sm90.cubin" > "$work/sm90_e4m3.sass" 2>&1 || fail "$cuobjdump -sass (FP8) failed"
    total=$(grep -c "QGMMA.64x128x32.F32.E4M3.E4M3" "$work/sm90_e4m3.sass")
    waits=$(grep "QGMMA.64x128x32.F32.E4M3.E4M3" "$work/sm90_e4m3.sass" | grep -c "gsb0")
    [ "$total" -gt 0 ] || fail "FP8 SASS lacks QGMMA.64x128x32.F32.E4M3.E4M3"
    [ $((waits * 4)) -eq "$total" ] || fail "FP8 SASS: $waits of $total QGMMA wait (want one per group of four)"
    echo "ok: FP8 SASS has $total QGMMA.64x128x32.F32.E4M3.E4M3, one wait per group of four"
    n=$(grep -cE "[[:space:]](LDL|STL)(\.|[[:space:]])" "$work/sm90_e4m3.sass")
    [ "$n" -eq 0 ] || fail "FP8 SASS has $n local-memory instructions (LDL/STL)"
    echo "ok: FP8 kernels without LDL/STL"
    echo "PASS"
    exit 0
fi
echo "usage: $0 ptxas <inst> <nvcc> <repo root> <work dir> | sass <work dir> [cuobjdump]"
exit 2
