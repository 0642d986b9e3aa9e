#!/usr/bin/env bash
# The one command for the GPU machine: configure (sm_90a only, plus the
# emulated sm100 kernel), build with every core, run every test, run the main
# job at a few sizes, print a short summary last. Logs go under $OUT when set
# (the device tool brings them back), else under build/h200/logs.
#
#   scripts/gpu_check.sh [--quick]      (--quick: main job at 4096^3 only)
set -u -o pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/h200/logs}
mkdir -p "$out"
jobs=$(nproc)
quick=${1:-}

summary=()
note() { summary+=("$1"); }

{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader || true; } \
  | tee "$out/gpu.txt"

if cmake --preset h200 >"$out/configure.log" 2>&1 && cmake --build --preset h200 -j "$jobs" >"$out/build.log" 2>&1; then
  note "build      ok ($(grep -c 'ptxas info' "$out/build.log") ptxas reports in build.log)"
else
  tail -40 "$out/build.log" "$out/configure.log"
  echo "BUILD FAILED"
  exit 1
fi

ctest --preset h200 -j 1 --timeout 900 >"$out/ctest.log" 2>&1
ctest_rc=$?
grep -E "tests passed|tests failed" "$out/ctest.log" | tail -1 | sed 's/^/tests      /' | while read -r l; do echo "$l"; done >"$out/ctest_line.txt"
note "$(cat "$out/ctest_line.txt")"
grep -E "\((Failed|Timeout|Skipped|SEGFAULT|Subprocess aborted)\)|\*\*\*" "$out/ctest.log" | head -20 >"$out/ctest_bad.txt" || true

sizes="4096 8192"
[ "$quick" = "--quick" ] && sizes="4096"
for s in $sizes; do
  build/h200/wsgemm-run --m "$s" --n "$s" --k "$s" --reps 20 >"$out/run_$s.log" 2>&1
  note "run $s^3  $(grep -E '^wsgemm ' "$out/run_$s.log" | awk '{print "path "$2", "$4" TFLOP/s, "$5"x cuBLAS"}') $(grep '^check' "$out/run_$s.log" | cut -c10-)"
done

echo
echo "== failing or skipped tests (first 20)"
cat "$out/ctest_bad.txt"
echo "== summary ($(date -u +%Y-%m-%dT%H:%MZ), $(cat "$out/gpu.txt"))"
printf '%s\n' "${summary[@]}"
exit $ctest_rc
