#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/checks/sanitize.sh SANITIZER TOOL RULE CCS PROGRAM [ARGS...] - one GPU test program under
# compute-sanitizer (the ctest entries sanitize.<tool>.<test>, label sanitize, from tests/checks/CMakeLists.txt).
#   SANITIZER  compute-sanitizer as CMake found it; $COMPUTE_SANITIZER overrides it, and PATH and
#              /usr/local/cuda/bin are tried when neither is executable
#   TOOL       memcheck, synccheck or racecheck
#   RULE       strict: any report fails the run (--error-exitcode 99);
#              outside-cublas: the run passes when the program passes and no report names a kernel other than
#              cuBLAS's nvjet_* ones. The tests check against cuBLAS, and racecheck reports hazards inside
#              cuBLAS's own small-m kernels on the H200 (docs/perf-log.md, "The deferred epilogue", counts them
#              for one case); a --kernel-name filter made the first cuBLAS call fail under the tool, so the
#              reports are sorted afterwards instead.
#   CCS        the compute capabilities the program's kernels are built for, comma-separated (9.0,10.0)
# Exit 77 (skipped) without compute-sanitizer or without a GPU of one of CCS; else the program's status under
# the tool (77 again when it skips by itself), or 99 when the tool reported an error.
set -u
san=$1 tool=$2 rule=$3 ccs=$4
shift 4
[ -n "${COMPUTE_SANITIZER:-}" ] && san=$COMPUTE_SANITIZER
if [ ! -x "$san" ]; then
    san=$(command -v compute-sanitizer 2>/dev/null || echo /usr/local/cuda/bin/compute-sanitizer)
fi
if [ ! -x "$san" ]; then
    echo "SKIPPED: no compute-sanitizer (the CUDA toolkit's bin/, or COMPUTE_SANITIZER=/path/to/it)"
    exit 77
fi
# A GPU the program's kernels run on: checked before starting the tool, which takes seconds to come up.
have=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' ')
found=0
for cc in $(echo "$ccs" | tr ',' ' '); do
    printf '%s\n' "$have" | grep -qxF "$cc" && found=1
done
if [ $found = 0 ]; then
    echo "SKIPPED: no GPU of compute capability $ccs (found: $(printf '%s' "${have:-none}" | tr '\n' ' '))"
    exit 77
fi

case $rule in
strict)
    exec "$san" --tool "$tool" --error-exitcode 99 --print-limit 20 "$@" ;;
outside-cublas)
    log=$(mktemp "${TMPDIR:-/tmp}/wsgemm-sanitize.XXXXXX") || exit 1
    trap 'rm -f "$log"' EXIT
    "$san" --tool "$tool" "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    [ $rc = 77 ] && exit 77
    ours=$(grep -E 'Race reported|Error:' "$log" | grep -vc nvjet_)
    theirs=$(grep -E 'Race reported' "$log" | grep -c nvjet_)
    echo "sanitize: $tool: exit $rc; $ours reports in wsgemm's kernels, $theirs in cuBLAS's nvjet kernels (not ours)"
    [ $rc = 0 ] && [ "$ours" = 0 ] ;;
*)
    echo "usage: $0 SANITIZER memcheck|synccheck|racecheck strict|outside-cublas CCS PROGRAM [ARGS...]" >&2
    exit 2 ;;
esac
