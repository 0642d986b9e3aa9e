#!/bin/sh
# SPDX-License-Identifier: MIT
# same_kernels_check.sh - CPU test: the self-check helper runs the kernels the library ships, not a copy
# compiled another way (gemm/sm100/self_check.h; the helper links the library's objects, CMakeLists.txt).
#
#   same_kernels_check.sh <cuobjdump> <helper> <library>
#
# For every device function the helper holds (each architecture's cubin), the library must hold one of the
# same name and architecture with the same resource usage (registers, stack, shared, local memory:
# cuobjdump --dump-resource-usage); each sm100 kernel also the same SASS (cuobjdump -sass -fun). Needs no GPU.
# Exit 77 (skipped) when no cuobjdump is found (pip install nvidia-cuda-cuobjdump provides one) or the helper
# holds no sm100 kernel; 1 with the first differences; 0 otherwise.
set -u
cuobjdump=${1:-}
helper=${2:?helper}
library=${3:?library}
case "$cuobjdump" in "" | *NOTFOUND) echo "SKIP: no cuobjdump"; exit 77 ;; esac
[ -x "$cuobjdump" ] || { echo "SKIP: $cuobjdump is not executable"; exit 77; }
[ -n "${TMPDIR:-}" ] && mkdir -p "$TMPDIR"
work=$(mktemp -d "${TMPDIR:-/tmp}/same_kernels.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# "<arch> <function> <resources>" per device function, sorted
resources() {
  "$cuobjdump" --dump-resource-usage "$1" |
    awk '/^arch = /{arch=$3} /^ Function /{name=$2; sub(/:$/, "", name)}
         /^  REG:/{print arch, name, $1, $2, $3, $4}' | LC_ALL=C sort
}
# "<arch> <function> <checksum of its SASS>" for each sm100 kernel of the resource list $2
sass() {
  grep 'sm100_gemm_kernel' "$2" | while read -r arch name rest; do
    # the instructions and their encodings only: an archive also prints the headers of its other members
    sum=$("$cuobjdump" -sass -arch "$arch" -fun "$name" "$1" 2>/dev/null | grep -E '/\*[0-9a-f]+\*/|/\* 0x[0-9a-f]+ \*/' |
          cksum | awk '{print $1 "-" $2}')
    echo "$arch $name $sum"
  done | LC_ALL=C sort
}

resources "$helper" > "$work/helper.res"
resources "$library" > "$work/library.res"
if ! grep -q 'sm100_gemm_kernel' "$work/helper.res"; then
  echo "SKIP: $helper holds no sm100 kernel (no 100a and no emulation in this build)"
  exit 77
fi
echo "helper:  $helper ($(wc -l < "$work/helper.res") device functions)"
echo "library: $library ($(wc -l < "$work/library.res") device functions)"
# each helper function, with its resources, is among the library's (the library holds more: sm90)
missing=$(LC_ALL=C comm -23 "$work/helper.res" "$work/library.res")
if [ -n "$missing" ]; then
  echo "FAIL: functions of the helper that the library does not hold with this resource usage:"
  echo "$missing" | head -20
  echo "the library's functions of the same names:"
  echo "$missing" | awk '{print $2}' | sort -u | while read -r name; do grep -F " $name " "$work/library.res"; done | head -20
  exit 1
fi
sass "$helper" "$work/helper.res" > "$work/helper.sass"
sass "$library" "$work/helper.res" > "$work/library.sass"
missing=$(LC_ALL=C comm -23 "$work/helper.sass" "$work/library.sass")
if [ -n "$missing" ] || [ ! -s "$work/helper.sass" ]; then
  echo "FAIL: functions of the helper whose SASS the library does not hold:"
  echo "$missing" | head -20
  exit 1
fi
grep 'sm100_gemm_kernel' "$work/helper.res" | sed 's/^/  same in both: /'
echo "PASS: the $(wc -l < "$work/helper.res") device functions of the helper are the library's ($(wc -l < "$work/helper.sass") sm100 kernels: SASS too)"
