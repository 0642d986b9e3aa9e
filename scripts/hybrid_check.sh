#!/usr/bin/env bash
# scripts/hybrid_check.sh - one call on the H200 for the hybrid schedule (data-parallel waves + a split
# ragged wave, gemm/common/scheduler.cuh): build (cmake --preset h200 into build/h200-hybrid, without the
# emulated sm100 kernel), run the scheduler's and the plan's CPU tests, the hybrid's GPU case alone under a
# short timeout (a hang costs 2 minutes, and the rest then runs with the hybrid off), the other sm90 GPU
# cases and the cuBLAS matrix on the sm90 path, then wsgemm-run side by side with cuBLAS (GPU time, host us)
# on the shapes below: each with the plan's own choice, and the ragged ones also with the hybrid off
# (WSGEMM_SM90_HYBRID=0: the plan before it) and forced (=2, =4: data for the cost model's constants).
# Prints a short table last. Logs are packed into $OUT/hybrid.tgz after each stage (a run cut short still
# brings back what it finished). About 7-8 minutes on 16 cores.
#
#   scripts/hybrid_check.sh [--no-tests]
set -u -o pipefail
cd "$(dirname "$0")/.."
run_tests=1
[ "${1:-}" = --no-tests ] && run_tests=0
out=${OUT:-build/h200-hybrid/out}
work=$(mktemp -d /tmp/wsgemm-hybrid-check.XXXXXX)
mkdir -p "$out"
pack() { tar czf "$out/hybrid.tgz" -C "$work" . 2>/dev/null; true; }
summary=()
note() { summary+=("$1"); echo "$1"; }
bin=build/h200-hybrid
t0=$SECONDS

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$work/gpu.txt" 2>&1 || true
if ! { cmake --preset h200 -B "$bin" -DWSGEMM_SM100_EMULATION=OFF -DWSGEMM_PTXAS_VERBOSE=ON &&
       cmake --build "$bin" -j "$(nproc)" --target sm90_host_test sm90_plan_test sm90_gemm_test gemm_matrix_test wsgemm-run; } \
       >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log"; pack; echo "BUILD FAILED (log in hybrid.tgz)"; exit 1
fi
spills=$(grep -A2 "Compiling entry function '_Z16sm90_gemm_kernel" "$work/build.log" | grep -c "[1-9][0-9]* bytes spill")
regs=$(grep -A3 "Compiling entry function '_Z16sm90_gemm_kernel" "$work/build.log" | grep -o "Used [0-9]* registers" | sort | uniq -c | tr '\n' ' ')
note "build      $((SECONDS - t0)) s; sm90 kernels: $regs; kernels with spills: $spills"
pack

hybrid_hung=0
if [ $run_tests = 1 ]; then
  t1=$SECONDS
  "$bin/tests/sm90/sm90_host_test" sched >"$work/host.log" 2>&1 && "$bin/tests/sm90/sm90_host_test" hybrid >>"$work/host.log" 2>&1 &&
    "$bin/tests/sm90/sm90_plan_test" choices >"$work/plan.log" 2>&1 && "$bin/tests/sm90/sm90_plan_test" sweep >>"$work/plan.log" 2>&1
  note "cpu        scheduler and plan tests: $([ $? = 0 ] && echo PASS || echo FAILED) ($(grep -h '^hybrid:\|^sweep:' "$work/host.log" "$work/plan.log" | wc -l) summary lines in host.log, plan.log)"
  # the split region changes what the kernel does at a unit's end (no C tile for it, partial tiles); its case
  # runs first and alone, so a hang costs 2 minutes and the rest runs with the hybrid off
  timeout 120 "$bin/tests/sm90/sm90_gemm_test" hybrid >"$work/hybrid.log" 2>&1
  rc=$?
  [ $rc = 124 ] && hybrid_hung=1
  note "hybrid     sm90_gemm_test hybrid: $([ $rc = 0 ] && echo PASS || { [ $rc = 124 ] && echo 'HUNG (killed after 120 s)' || echo "FAILED ($rc)"; }) $(grep -E '^sm90 hybrid' "$work/hybrid.log")"
  grep -E "^FAIL" "$work/hybrid.log" | head -5 | sed 's/^/           /'
  pack
  steer=""
  [ $hybrid_hung = 1 ] && steer="WSGEMM_SM90_HYBRID=0"
  (cd "$bin" && env $steer ctest -j 4 --output-on-failure --timeout 300 -R "^sm90_gemm_test|^gemm_matrix\.sm90\." \
     -E "sm90_gemm_test\.hybrid" >"$work/ctest.log" 2>&1)
  note "tests      $(grep -E 'tests passed|tests failed' "$work/ctest.log" | tail -1) ($((SECONDS - t1)) s)"
  grep -E "^\s*[0-9]+ - .*(Failed|Timeout|Not Run)" "$work/ctest.log" | head -20 | sed 's/^/           /'
  grep -E "^FAIL " "$work/ctest.log" | head -10 | sed 's/^/           /'
  pack
fi

# label | wsgemm-run arguments | environment
shapes=(
  "3072^3|--m 3072 --n 3072 --k 3072|"
  "3072^3 hybrid off|--m 3072 --n 3072 --k 3072|WSGEMM_SM90_HYBRID=0"
  "3072^3 beta=1|--m 3072 --n 3072 --k 3072 --beta 1|"
  "3072^3 beta=1 hybrid off|--m 3072 --n 3072 --k 3072 --beta 1|WSGEMM_SM90_HYBRID=0"
  "3072^3 f32 C|--m 3072 --n 3072 --k 3072 --c f32|"
  "1000^3|--m 1000 --n 1000 --k 1000|"
  "1000^3 hybrid 2|--m 1000 --n 1000 --k 1000|WSGEMM_SM90_HYBRID=2"
  "1000^3 hybrid 4|--m 1000 --n 1000 --k 1000|WSGEMM_SM90_HYBRID=4"
  "2048^3|--m 2048 --n 2048 --k 2048|"
  "5000x7000x3000|--m 5000 --n 7000 --k 3000|"
  "5000x7000x3000 hybrid 2|--m 5000 --n 7000 --k 3000|WSGEMM_SM90_HYBRID=2"
  "128x8192x8192|--m 128 --n 8192 --k 8192|"
  "128x8192x8192 hybrid 2|--m 128 --n 8192 --k 8192|WSGEMM_SM90_HYBRID=2"
  "128x8192x8192 BN 128 hybrid 2|--m 128 --n 8192 --k 8192|WSGEMM_SM90_HYBRID=2 WSGEMM_SM90_BN=128"
  "256x8192x8192|--m 256 --n 8192 --k 8192|"
  "256x8192x8192 hybrid 2|--m 256 --n 8192 --k 8192|WSGEMM_SM90_HYBRID=2"
  "4096^3|--m 4096 --n 4096 --k 4096|"
  "4096^3 hybrid 2|--m 4096 --n 4096 --k 4096|WSGEMM_SM90_HYBRID=2"
  "8192^3|--m 8192 --n 8192 --k 8192|"
)
table=("| shape | wsgemm ms | cuBLAS ms | GPU-time ratio | host us wsgemm / cuBLAS | rounds held | check | plan |"
       "| --- | --- | --- | --- | --- | --- | --- | --- |")
i=0
for entry in "${shapes[@]}"; do
  IFS='|' read -r label args envs <<<"$entry"
  log="$work/run_$i.log"
  i=$((i + 1))
  if [ $hybrid_hung = 1 ] && [[ "$envs" != *HYBRID=0* ]]; then
    envs="$envs WSGEMM_SM90_HYBRID=0"
    label="$label (hybrid off: it hung in its test)"
  fi
  env $envs WSGEMM_SM90_DEBUG=1 timeout 60 "$bin/wsgemm-run" $args --reps 20 >"$log" 2>&1
  [ $? = 124 ] && echo "TIMED OUT after 60 s" >>"$log"
  ws=$(grep -E '^wsgemm +[a-z0-9-]+ +[0-9]' "$log" | head -1) # not the plan lines (wsgemm sm90: ...)
  cb=$(grep -E '^cuBLAS ' "$log" | head -1)
  held=$(grep -oE '\([0-9]+ of [0-9]+ rounds held\)' "$log" | tr -d '()' | sed 's/ rounds held//')
  table+=("| $label | $(echo "$ws" | awk '{print $3}') | $(echo "$cb" | awk '{print $3}') | $(echo "$ws" | awk '{print $5}') | $(echo "$ws" | awk '{print $6}') / $(echo "$cb" | awk '{print $6}') | $held | $(grep -m1 '^check' "$log" | awk '{print $2}') | $(grep -m1 -oE '128x[0-9]+x64' "$log") $(grep -m1 -oE 'hybrid=[0-9]+\+[0-9]+x[0-9]+' "$log") $(grep -m1 -oE 'splits=[0-9]+' "$log") $(grep -m1 -oE 'epilogue=[a-z-]+' "$log") |")
done
printf '%s\n' "${table[@]}" >"$work/table.md"
pack
echo
echo "== summary ($(date -u +%Y-%m-%dT%H:%MZ), $(cat "$work/gpu.txt"), $((SECONDS - t0)) s)"
printf '%s\n' "${summary[@]}"
cat "$work/table.md"
