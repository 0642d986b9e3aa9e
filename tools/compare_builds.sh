#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/compare_builds.sh OLD_BUILD NEW_BUILD [LOG_DIR] - two builds of wsgemm (e.g. before and after a change
# that must not change speed) side by side on one GPU: for each shape below, OLD_BUILD/wsgemm-run and
# NEW_BUILD/wsgemm-run in the order old, new, new, old, each checking its result against cuBLAS and then timing
# GPU time side by side with cuBLAS (docs/performance.md, "What is measured"). One row per shape: the path
# the new build ran, each build's wsgemm ms and ratio to cuBLAS (means of its two runs), and new/old of the
# ratios (above 1: the new build is faster against the same cuBLAS). Logs per shape and build in LOG_DIR
# (default: a new folder under /tmp). About 2 minutes on an H200.
set -u -o pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD [LOG_DIR]" >&2; exit 2; }
old_build=$1 new_build=$2
O=${3:-$(mktemp -d "${TMPDIR:-/tmp}/wsgemm-compare.XXXXXX")}
mkdir -p "$O/perf"
for b in "$old_build" "$new_build"; do
  [ -x "$b/wsgemm-run" ] || { echo "no wsgemm-run in $b (build the target wsgemm-run)" >&2; exit 2; }
done
shapes=(
 "8192^3|--m 8192 --n 8192 --k 8192 --reps 10"
 "4096^3|--m 4096 --n 4096 --k 4096"
 "2048^3|--m 2048 --n 2048 --k 2048"
 "1000^3|--m 1000 --n 1000 --k 1000"
 "3072^3|--m 3072 --n 3072 --k 3072"
 "5000x7000x3000|--m 5000 --n 7000 --k 3000"
 "8192x8192x1024|--m 8192 --n 8192 --k 1024"
 "4096x14336x4096|--m 4096 --n 14336 --k 4096 --reps 10"
 "m16 n=k=8192|--m 16 --n 8192 --k 8192"
 "m128 n=k=8192|--m 128 --n 8192 --k 8192"
 "m1 n4096 k14336|--m 1 --n 4096 --k 14336"
 "4096^3 beta1|--m 4096 --n 4096 --k 4096 --beta 1"
 "4096^3 f32C|--m 4096 --n 4096 --k 4096 --c f32"
 "64x512^3|--m 512 --n 512 --k 512 --batch 64"
 "256x256x65536|--m 256 --n 256 --k 65536 --ta T"
 "4099^3|--m 4099 --n 4099 --k 4099"
 "fp8 4096^3 TN|--m 4096 --n 4096 --k 4096 --ta T --ab e4m3 --d bf16"
 "gelu_bias 4096^3|--m 4096 --n 4096 --k 4096 --ta T --epilogue gelu_bias --bias bf16"
)
printf '%-20s %-8s %9s %9s %9s %9s %8s\n' shape path old_ms new_ms old/cub new/cub new/old
for s in "${shapes[@]}"; do
  label=${s%%|*}; args=${s#*|}; tag=$(echo "$label" | tr -c 'a-zA-Z0-9\n' '_')
  for order in old new new old; do
    b=$new_build; [ $order = old ] && b=$old_build
    # shellcheck disable=SC2086 # args is a list of wsgemm-run options
    timeout 60 "$b/wsgemm-run" $args >>"$O/perf/${tag}_$order.log" 2>&1
  done
  parse() { awk '$1=="wsgemm" && $3 ~ /^[0-9.]+$/ {print $3, $5, $2} $2=="wsgemm" && $4 ~ /^[0-9.]+$/ {print $4, $6, $3}' "$O/perf/${tag}_$1.log"; }
  read -r o1 r1 _ <<<"$(parse old | sed -n 1p)"; read -r o2 r2 _ <<<"$(parse old | sed -n 2p)"
  read -r n1 q1 pn <<<"$(parse new | sed -n 1p)"; read -r n2 q2 _ <<<"$(parse new | sed -n 2p)"
  chk=$(grep -c 'PASS' "$O/perf/${tag}_new.log")
  python3 - "$label" "$pn" "$o1" "$o2" "$n1" "$n2" "$r1" "$r2" "$q1" "$q2" "$chk" <<'PY'
import sys
l,p,o1,o2,n1,n2,r1,r2,q1,q2,chk=sys.argv[1:]
f=lambda *x: [float(v) for v in x if v not in ('','None')]
om=sum(f(o1,o2))/max(1,len(f(o1,o2))); nm=sum(f(n1,n2))/max(1,len(f(n1,n2)))
orr=sum(f(r1,r2))/max(1,len(f(r1,r2))); nr=sum(f(q1,q2))/max(1,len(f(q1,q2)))
print('%-20s %-8s %9.4f %9.4f %9.3f %9.3f %8.3f  checks passed %s' % (l, p, om, nm, orr, nr, (nr/orr if orr else 0), chk))
PY
done
echo "logs: $O/perf"
