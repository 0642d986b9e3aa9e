#!/usr/bin/env bash
# scripts/perf_sweep.sh - GPU time of wsgemm (AUTO) side by side with cuBLAS over the shapes users call: squares
# 1024^3 .. 16384^3 (step 1024), the LLM projections (m = 4096, 8192 tokens; n 4096, 14336, 28672; k 4096,
# 14336), decode (m = 1 .. 256 with n = k = 8192 and n = 4096, k = 14336), beta = 1, fp32 C, a batch, and the
# medium shapes 1000^3, 5000x7000x3000, 8192x8192x1024. One wsgemm-run per shape (bf16 in, op NN, result
# checked against cuBLAS first; GPU time with the stream held, order alternating, median of the rounds).
# Builds wsgemm-run for sm_90a with every core into build/sweep; prints one line per shape, then the table;
# logs (one per shape, with the plan line) packed into $WSGEMM_LOG_DIR/sweep.tgz. About 4 minutes on the H200.
#
#   scripts/perf_sweep.sh [SECONDS]   stop starting new shapes after SECONDS of running (default 330)
set -u -o pipefail
cd "$(dirname "$0")/.."
out=${WSGEMM_LOG_DIR:-build/sweep/out}
logs=$(mktemp -d /tmp/wsgemm-sweep.XXXXXX)
mkdir -p "$out"
t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1
if ! { cmake --preset h200 -B build/sweep -DWSGEMM_SM100_EMULATION=OFF -DWSGEMM_BUILD_BENCH=ON &&
       cmake --build build/sweep -j "$(nproc)" --target wsgemm-run; } >"$logs/build.log" 2>&1; then
  tail -30 "$logs/build.log"; tar czf "$out/sweep.tgz" -C "$logs" .; echo "perf_sweep.sh: the build failed"; exit 1
fi
echo "built in $((SECONDS - t0)) s"
budget=${1:-330}
start=$SECONDS
table=()
failed=0
# run LABEL ENV wsgemm-run-arguments...
run() {
  local label=$1 envs=$2; shift 2
  if [ $((SECONDS - start)) -gt "$budget" ]; then table+=("| $label | not run (time budget) | | | |"); return; fi
  local log="$logs/$(echo "$label" | tr -c 'A-Za-z0-9\n' '_').log"
  env $envs WSGEMM_SM90_DEBUG=1 timeout 60 build/sweep/wsgemm-run "$@" >"$log" 2>&1
  local rc=$?
  local ws cb check plan
  ws=$(grep -E '^wsgemm +[a-z0-9-]+ +[0-9]' "$log" | head -1)
  cb=$(grep -E '^cuBLAS ' "$log" | head -1)
  check=$(grep -m1 '^check' "$log" | awk '{print $2}')
  plan=$(grep -m1 -oE '128x[0-9]+x64 stages=[0-9]+ cluster=[0-9]+ variant=[0-9]+' "$log" | sed 's/ stages=[0-9]*//')
  plan="$plan $(grep -m1 -oE 'splits=[0-9]+' "$log")"
  [ "$check" = PASS ] || failed=$((failed + 1))
  [ "$check" = PASS ] || check="${check:-NO RESULT} (rc $rc)"
  local line
  line=$(printf '| %s | %.1f | %.1f | %s | %s | %s |' "$label" \
    "$(echo "$ws" | awk '{print $3 * 1000}')" "$(echo "$cb" | awk '{print $3 * 1000}')" \
    "$(echo "$ws" | awk '{print $5}')" "$check" "$plan")
  echo "$line"
  table+=("$line")
}
for s in 1024 2048 3072 4096 5120 6144 7168 8192 9216 10240 11264 12288 13312 14336 15360 16384; do
  reps=20; [ "$s" -ge 10240 ] && reps=8
  run "${s}^3" "" --m "$s" --n "$s" --k "$s" --reps "$reps"
done
run "1000^3" "" --m 1000 --n 1000 --k 1000
run "5000x7000x3000" "" --m 5000 --n 7000 --k 3000
run "8192x8192x1024" "" --m 8192 --n 8192 --k 1024
for m in 4096 8192; do for n in 4096 14336 28672; do for k in 4096 14336; do
  run "${m}x${n}x${k}" "" --m "$m" --n "$n" --k "$k" --reps 10
done; done; done
for m in 1 16 64 128 256; do
  run "${m}x8192x8192" "" --m "$m" --n 8192 --k 8192
  run "${m}x4096x14336" "" --m "$m" --n 4096 --k 14336
done
run "beta 1: 4096^3" "" --m 4096 --n 4096 --k 4096 --beta 1
run "beta 1: 8192^3" "" --m 8192 --n 8192 --k 8192 --beta 1 --reps 10
run "fp32 C: 4096^3" "" --m 4096 --n 4096 --k 4096 --c f32
run "batch 64 x 512^3" "" --m 512 --n 512 --k 512 --batch 64
tar czf "$out/sweep.tgz" -C "$logs" .
echo
echo "== $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $((SECONDS - t0)) s"
echo "| shape | wsgemm us | cuBLAS us | GPU-time ratio | check | plan (tile, cluster, variant, splits) |"
echo "| --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${table[@]}"
[ "$failed" = 0 ]
