#!/bin/sh
# SPDX-License-Identifier: MIT
# check_ptx.sh PTX - the sm_100a PTX of tests/tmem/tmem_hw_probe.cu holds every tcgen05 instruction the
# tmem/ API wraps, in the kernel of the right cta_group, and neither kernel mixes cta_groups (ptxas
# rejects a mix; this catches a wrapper that silently emits the other group). Exit 0 pass, 1 fail.
ptx="$1"
[ -r "$ptx" ] || { echo "FAIL: cannot read PTX file '$ptx'"; exit 1; }
fail=0
tmp="${TMPDIR:-/tmp}/check_ptx.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
# Split the PTX into one file per .entry (kernel bodies run to the next .entry).
awk -v dir="$tmp" '/\.entry /{ name=$0; sub(/.*\.entry[ \t]+/, "", name); sub(/\(.*/, "", name); out=dir "/" name ".ptx" }
     out { print > out }' "$ptx"

# expect KERNEL FIXED-STRING: the string occurs in the kernel's PTX.
expect() {
    if grep -F -q -- "$2" "$tmp/$1.ptx" 2>/dev/null; then
        echo "  ok   $1: $2 ($(grep -F -c -- "$2" "$tmp/$1.ptx")x)"
    else
        echo "  FAIL $1: missing $2"; fail=1
    fi
}
# absent KERNEL FIXED-STRING: the string does not occur.
absent() {
    if grep -F -q -- "$2" "$tmp/$1.ptx" 2>/dev/null; then
        echo "  FAIL $1: must not contain $2"; fail=1
    else
        echo "  ok   $1: no $2"
    fi
}

for cg in 1 2; do
    k="tmem_probe_cg$cg"
    [ -r "$tmp/$k.ptx" ] || { echo "  FAIL: kernel $k not in $ptx"; fail=1; continue; }
    expect "$k" "tcgen05.alloc.cta_group::$cg.sync.aligned.shared::cta.b32"
    expect "$k" "tcgen05.dealloc.cta_group::$cg.sync.aligned.b32"
    expect "$k" "tcgen05.relinquish_alloc_permit.cta_group::$cg.sync.aligned"
    expect "$k" "tcgen05.mma.cta_group::$cg.kind::f16"
    expect "$k" "tcgen05.mma.cta_group::$cg.kind::mxf8f6f4.block_scale"
    expect "$k" "tcgen05.cp.cta_group::$cg.32x128b.warpx4"
    expect "$k" "tcgen05.ld.sync.aligned.32x32b.x16.b32"
    expect "$k" "tcgen05.ld.sync.aligned.32x32b.x32.b32"
    expect "$k" "tcgen05.ld.sync.aligned.32x32b.x64.b32"
    expect "$k" "tcgen05.ld.sync.aligned.32x32b.x128.b32"
    expect "$k" "tcgen05.ld.sync.aligned.16x256b.x8.b32"
    expect "$k" "tcgen05.wait::ld.sync.aligned"
    expect "$k" "tcgen05.fence::before_thread_sync"
    expect "$k" "tcgen05.fence::after_thread_sync"
    expect "$k" "elect.sync"
    other=$((3 - cg))
    absent "$k" "cta_group::$other"
done
expect tmem_probe_cg1 "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"
expect tmem_probe_cg2 "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64"
absent tmem_probe_cg1 "multicast::cluster"

if [ $fail -ne 0 ]; then echo "check_ptx: FAILED"; exit 1; fi
echo "check_ptx: PASS (every wrapped tcgen05 instruction present, one cta_group per kernel)"
