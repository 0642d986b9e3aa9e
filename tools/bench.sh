#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/bench.sh - the performance numbers of one build: bring wsgemm-bench up to date in BUILD (every core),
# run a selection of its suites (GPU time side by side with cuBLAS, each result checked first), and write
# under the output folder ($WSGEMM_LOG_DIR, else BUILD/bench-out):
#   bench.json            Google Benchmark JSON (--benchmark_out)
#   bench.log             the console output of the run
#   tflops_<suite>.png    TFLOP/s per implementation, one plot per suite
#   ratio_to_cublas.png   every shape but the grid's, relative to cuBLAS
#   heatmap_grid.png      the grid's ratio to cuBLAS, m x n per k
#   table.md, grid.md     the tables for docs/performance.md (table.md printed last)
#   build.log, nvidia-smi.txt
#
#   tools/bench.sh BUILD [targets|grid|all|full] [wsgemm-bench arguments...]
#     BUILD    a configured build with the benchmarks (Google Benchmark found), e.g. build/h200-bench
#              (cmake --preset h200-bench: sm_90a, no tests, no emulated kernel) or build/h200
#     targets  (default) wsgemm_auto on square, llm, decode, beta1, f32c, unaligned, batched: every square
#              from 1024^3 to 16384^3, the LLM projections, decode, C read, fp32 C, ragged and batched shapes;
#              each row carries cuBLAS's GPU time of the same rounds, so no separate cuBLAS rows are needed
#     grid     wsgemm_auto on the grid (m, n, k over 512..16384 and 1000, 5000): the heat map
#     all      targets and grid (about 4 minutes on the H200 with the build)
#     full     every implementation (cuBLAS, cuBLASLt, every wsgemm path) on every named suite
# Extra arguments go to wsgemm-bench, e.g. --benchmark_filter='^llm/' (replaces the selection's filter)
# or --wsgemm_rounds=40.
# Environment: WSGEMM_LOG_DIR (the output folder), BENCH_BUDGET_S (default 300: build + run + plots end
# within it; the run is stopped early if needed and the plots use the rows finished by then),
# BENCH_EMULATED=1 (also time the emulated sm100 path, shapes <= 1024; the build must hold it),
# WSGEMM_COMMIT (recorded in the report when the tree is not a git checkout).
# Exit status: that of wsgemm-bench (3: a wrong result was found, 4: the device failed mid-run; see the ERROR
# rows), 1 when nothing could be built or measured, 2 on a usage error.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { echo "usage: $0 BUILD [targets|grid|all|full] [wsgemm-bench arguments...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
build=$1
shift
[ -f "$build/CMakeCache.txt" ] || { echo "bench.sh: $build is not a configured build (cmake --preset h200-bench)" >&2; usage; }
build=$(cd "$build" && pwd)
selection=targets
case ${1:-} in targets | grid | all | full) selection=$1; shift ;; esac
case $selection in
targets) filter='^(square|llm|decode|beta1|f32c|unaligned|batched)/wsgemm_auto/' ;;
grid) filter='^grid/' ;;
all) filter='^((square|llm|decode|beta1|f32c|unaligned|batched)/wsgemm_auto|grid)/' ;;
full) filter='-^grid/' ;;
esac
out=${WSGEMM_LOG_DIR:-$build/bench-out}
mkdir -p "$out"
start=$(date +%s)

echo "== build wsgemm-bench in $build ($(nproc) jobs); log: $out/build.log"
if ! cmake --build "$build" -j "$(nproc)" --target wsgemm-bench >"$out/build.log" 2>&1; then
    tail -n 40 "$out/build.log"
    echo "bench.sh: the build failed (full log: $out/build.log); without Google Benchmark (libbenchmark-dev)" \
         "or with WSGEMM_BUILD_BENCH off the build has no wsgemm-bench"
    exit 1
fi
echo "== built in $(($(date +%s) - start)) s"

nvidia-smi >"$out/nvidia-smi.txt" 2>&1 || true
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
commit=${WSGEMM_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
extra=()
[ "${BENCH_EMULATED:-0}" = 1 ] && extra+=(--wsgemm_emulated)

# 20 rounds per benchmark (a few ms to a second each), one repetition: the
# rounds are the repetitions that matter (medians of GPU time per library).
budget=${BENCH_BUDGET_S:-300}
left=$((budget - ($(date +%s) - start) - 20)) # 20 s for the plots
[ "$left" -lt 30 ] && left=30
echo "== run '$selection' (stopped after $left s if not done)"
timeout --signal=INT "$left" "$build/wsgemm-bench" \
    --benchmark_out="$out/bench.json" --benchmark_out_format=json \
    --benchmark_filter="$filter" \
    --wsgemm_context="driver=${driver:-unknown}" --wsgemm_context="commit=$commit" \
    --wsgemm_context="command=tools/bench.sh $selection $*" \
    "${extra[@]}" "$@" 2>&1 | tee "$out/bench.log"
rc=${PIPESTATUS[0]}
echo "== ran in $(($(date +%s) - start)) s in all; wsgemm-bench exit status $rc"
[ "$rc" -eq 124 ] && echo "bench.sh: the run hit its time budget; the table holds the rows finished before it"

if [ -s "$out/bench.json" ]; then
    python3 "$root/bench/plot.py" "$out/bench.json" --out "$out" --quiet || echo "bench.sh: plot.py failed"
    echo "== table ($out/table.md)"
    cat "$out/table.md" 2>/dev/null
else
    echo "bench.sh: no JSON was written: nothing was measured"
    [ "$rc" -eq 0 ] && rc=1
fi
exit "$rc"
