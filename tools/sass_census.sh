#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/sass_census.sh [--check REVIEWED] [--write REVIEWED] FILE
#   Counts, per kernel, the SASS instructions of the Blackwell tensor-core path in FILE (a cubin, an
#   object or an executable): UTCHMMA (tcgen05.mma), UTCBAR (tcgen05.commit), LDTM (tcgen05.ld),
#   UTCATOMSWS (tcgen05.alloc/dealloc), UVIRTCOUNT (relinquish), UTMALDG/UTMASTG (TMA), with their
#   modifiers (UTCQMMA: tcgen05.mma of the 8-bit kinds, f8f6f4 and mxf8f6f4.block_scale; UTCCP: tcgen05.cp).
#   Prints "kernel opcode count" lines, sorted.
#   --check REVIEWED: compare with a reviewed census kept in the repo; exit 1 and show the diff if they differ.
#   --write REVIEWED: (re)write the reviewed file (then review the diff before committing it).
# Exit 77 (skipped) when cuobjdump or nvdisasm cannot be found. They need no GPU: CUDA toolkit bin/, or
# `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` (looked up in python's site-packages);
# CUOBJDUMP / NVDISASM_PATH override.
set -u
mode=print
reviewed=
case "${1:-}" in
--check) mode=check; reviewed="$2"; shift 2 ;;
--write) mode=write; reviewed="$2"; shift 2 ;;
esac
file="${1:-}"
[ -n "$file" ] && [ -r "$file" ] || { echo "usage: $0 [--check|--write REVIEWED] FILE" >&2; exit 2; }

find_tool() { # name -> path or empty
    if [ "$1" = cuobjdump ] && [ -n "${CUOBJDUMP:-}" ] && [ -x "$CUOBJDUMP" ]; then echo "$CUOBJDUMP"; return; fi
    if [ "$1" = nvdisasm ] && [ -n "${NVDISASM_PATH:-}" ] && [ -x "$NVDISASM_PATH/nvdisasm" ]; then
        echo "$NVDISASM_PATH/nvdisasm"; return; fi
    p=$(command -v "$1" 2>/dev/null) && { echo "$p"; return; }
    for d in "${CUDA_HOME:-/nonexistent}/bin" /usr/local/cuda/bin; do
        [ -x "$d/$1" ] && { echo "$d/$1"; return; }
    done
    for py in python3 python; do
        command -v $py >/dev/null 2>&1 || continue
        site=$($py -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null) || continue
        for d in "$site"/nvidia/cu13/bin "$site"/nvidia/cu12/bin "$site"/nvidia/cuda_cuobjdump/bin \
                 "$site"/nvidia/cuda_nvdisasm/bin; do
            [ -x "$d/$1" ] && { echo "$d/$1"; return; }
        done
    done
}
cuobjdump=$(find_tool cuobjdump)
nvdisasm=$(find_tool nvdisasm)
if [ -z "$cuobjdump" ] || [ -z "$nvdisasm" ]; then
    echo "SKIPPED: SASS census needs cuobjdump and nvdisasm (CUDA toolkit, or pip install nvidia-cuda-cuobjdump" \
         "nvidia-cuda-nvdisasm); found cuobjdump='$cuobjdump' nvdisasm='$nvdisasm'"
    exit 77
fi
NVDISASM_PATH=$(dirname "$nvdisasm"); export NVDISASM_PATH
PATH="$NVDISASM_PATH:$PATH"; export PATH

sass=$("$cuobjdump" -sass "$file" 2>&1) || { echo "FAIL: cuobjdump -sass $file: $sass"; exit 1; }
census=$(printf '%s\n' "$sass" | awk '
    /Function :/ { fn = $NF; next }
    {
        line = $0
        sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)   # address
        sub(/^@!?U?P[0-9T]+[ \t]+/, "", line)              # predicate
        split(line, t, /[ \t;]+/)
        op = t[1]
        if (op ~ /^(UTCHMMA|UTCQMMA|UTCCP|UTCBAR|LDTM|STTM|UTCATOMSWS|UVIRTCOUNT|UTMALDG|UTMASTG)/) n[fn " " op]++
    }
    END { for (k in n) print k, n[k] }' | sort)
[ -n "$census" ] || census="(no tensor-core instructions)"

case $mode in
print) printf '%s\n' "$census" ;;
write) printf '%s\n' "$census" > "$reviewed"; echo "wrote $reviewed:"; cat "$reviewed" ;;
check)
    [ -r "$reviewed" ] || { echo "FAIL: reviewed census '$reviewed' missing"; exit 1; }
    if printf '%s\n' "$census" | diff -u "$reviewed" - ; then
        echo "sass_census: PASS ($(printf '%s\n' "$census" | wc -l) kernel/opcode counts match $reviewed)"
    else
        echo "sass_census: FAILED: the SASS differs from the reviewed census above (- reviewed, + now)."
        echo "If the change is intended, rerun with --write and review the diff."
        exit 1
    fi ;;
esac
