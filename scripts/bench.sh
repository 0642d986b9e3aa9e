#!/usr/bin/env bash
# scripts/bench.sh - the one device command for the performance numbers:
# configure and build wsgemm-bench for sm_90a (all cores), run a selection of
# suites (GPU time side by side with cuBLAS, correctness checked first), write
# under $WSGEMM_LOG_DIR:
#   bench.json            Google Benchmark JSON (--benchmark_out)
#   bench.log             the console output of the run
#   tflops_<suite>.png    TFLOP/s per implementation, one plot per suite
#   ratio_to_cublas.png   every shape but the grid's, relative to cuBLAS
#   heatmap_grid.png      the grid's ratio to cuBLAS, m x n per k
#   table.md, grid.md     the tables for docs/performance.md (table.md printed last)
#   build.log, nvidia-smi.txt
#
#   scripts/bench.sh [targets|grid|all|full] [wsgemm-bench arguments...]
#     targets  (default) wsgemm_auto on square, llm, decode, beta1, f32c, unaligned, batched: each row
#              carries cuBLAS's GPU time of the same rounds, so no separate cuBLAS rows are needed
#     grid     wsgemm_auto on the grid (m, n, k over 512..16384 and 1000, 5000): the heat map
#     all      targets and grid (about 4 minutes on the H200 with the build)
#     full     every implementation (cuBLAS, cuBLASLt, every wsgemm path) on every named suite
# Extra arguments go to wsgemm-bench, e.g. --benchmark_filter='^llm/' (replaces the selection's filter)
# or --wsgemm_rounds=40.
# Environment: WSGEMM_LOG_DIR (default build/bench-out), BUILD_DIR (default build/bench-h200),
# BENCH_BUDGET_S (default 300: build + run + plots end within it; the run is
# stopped early if needed and the plots use the rows finished by then),
# BENCH_EMULATED=ON (also build and time the emulated sm100 path, shapes <= 1024),
# WSGEMM_COMMIT (recorded in the report when the tree is not a git checkout).
# Exit status: that of wsgemm-bench (3: a wrong result was found, 4: the device
# failed mid-run; see the ERROR rows), 1 when nothing could be built or measured.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
selection=targets
case ${1:-} in targets | grid | all | full) selection=$1; shift ;; esac
case $selection in
targets) filter='^(square|llm|decode|beta1|f32c|unaligned|batched)/wsgemm_auto/' ;;
grid) filter='^grid/' ;;
all) filter='^((square|llm|decode|beta1|f32c|unaligned|batched)/wsgemm_auto|grid)/' ;;
full) filter='-^grid/' ;;
esac
WSGEMM_LOG_DIR=${WSGEMM_LOG_DIR:-$root/build/bench-out}
build=${BUILD_DIR:-$root/build/bench-h200}
emulated=${BENCH_EMULATED:-OFF}
mkdir -p "$WSGEMM_LOG_DIR"
start=$(date +%s)

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
echo "== configure + build (sm_90a, $(nproc) jobs); log: $WSGEMM_LOG_DIR/build.log"
if ! { cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DWSGEMM_CUDA_ARCHS=90a \
         -DWSGEMM_SM100_EMULATION="$emulated" -DWSGEMM_BUILD_TESTS=OFF -DWSGEMM_BUILD_BENCH=ON &&
       cmake --build "$build" -j "$(nproc)" --target wsgemm-bench; } >"$WSGEMM_LOG_DIR/build.log" 2>&1; then
    tail -n 40 "$WSGEMM_LOG_DIR/build.log"
    echo "bench.sh: the build failed (full log: $WSGEMM_LOG_DIR/build.log)"
    exit 1
fi
if [ ! -x "$build/wsgemm-bench" ]; then
    grep -i "benchmark" "$WSGEMM_LOG_DIR/build.log"
    echo "bench.sh: wsgemm-bench was not built: Google Benchmark not found (libbenchmark-dev)"
    exit 1
fi
echo "== built in $(($(date +%s) - start)) s"

nvidia-smi >"$WSGEMM_LOG_DIR/nvidia-smi.txt" 2>&1 || true
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
commit=${WSGEMM_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
extra=()
[ "$emulated" = ON ] && extra+=(--wsgemm_emulated)

# 20 rounds per benchmark (a few ms to a second each), one repetition: the
# rounds are the repetitions that matter (medians of GPU time per library).
budget=${BENCH_BUDGET_S:-300}
left=$((budget - ($(date +%s) - start) - 20)) # 20 s for the plots
[ "$left" -lt 30 ] && left=30
echo "== run '$selection' (stopped after $left s if not done)"
timeout --signal=INT "$left" "$build/wsgemm-bench" \
    --benchmark_out="$WSGEMM_LOG_DIR/bench.json" --benchmark_out_format=json \
    --benchmark_filter="$filter" \
    --wsgemm_context="driver=${driver:-unknown}" --wsgemm_context="commit=$commit" \
    --wsgemm_context="command=scripts/bench.sh $selection $*" \
    "${extra[@]}" "$@" 2>&1 | tee "$WSGEMM_LOG_DIR/bench.log"
rc=${PIPESTATUS[0]}
echo "== ran in $(($(date +%s) - start)) s in all; wsgemm-bench exit status $rc"
[ "$rc" -eq 124 ] && echo "bench.sh: the run hit its time budget; the table holds the rows finished before it"

if [ -s "$WSGEMM_LOG_DIR/bench.json" ]; then
    python3 "$root/bench/plot.py" "$WSGEMM_LOG_DIR/bench.json" --out "$WSGEMM_LOG_DIR" --quiet || echo "bench.sh: plot.py failed"
    echo "== table ($WSGEMM_LOG_DIR/table.md)"
    cat "$WSGEMM_LOG_DIR/table.md" 2>/dev/null
else
    echo "bench.sh: no JSON was written: nothing was measured"
    [ "$rc" -eq 0 ] && rc=1
fi
exit "$rc"
