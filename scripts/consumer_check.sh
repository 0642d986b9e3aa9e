#!/usr/bin/env bash
# scripts/consumer_check.sh - on a GPU machine, in one command from the repository root: what a project
# that uses wsgemm goes through, run for real.
#
#   scripts/consumer_check.sh [build dir, default build/consumer-check]
#
# 1. configures wsgemm for sm_90a (no emulation, no tools or benchmarks) and builds the libraries and the
#    package tests' programs (all cores);
# 2. runs `ctest -L package` with WSGEMM_REQUIRE_GPU=1, so that a program that finds no GPU FAILS instead
#    of reporting skipped: cmake --install into <build>/package-test/prefix; the C and C++ consumers
#    through find_package (shared, static) and pkg-config (shared, static), built and run (a GEMM against
#    a host reference each); the FetchContent consumer; examples/ring_rowsum built against the install
#    (sm_90a + sm_100a) and run; the exported symbols; the header as C and C++; the Python module's CPU
#    tests, its GPU tests (ctypes device arrays against NumPy; PyTorch and CuPy where installed) and its
#    pip install (offline);
# 3. prints a table (PASS / FAIL / SKIP per entry) and exits non-zero when anything failed.
# WSGEMM_REQUIRE_GPU=0 in the environment runs it on a machine without a GPU (runs then report skipped).
# Logs go to $WSGEMM_LOG_DIR when set, else to <build>/logs. About 3 minutes on
# 16 cores.
set -u
build=${1:-build/consumer-check}
logs=${WSGEMM_LOG_DIR:-$build/logs}
mkdir -p "$logs"
jobs=$(nproc 2>/dev/null || echo 8)
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
export WSGEMM_REQUIRE_GPU=${WSGEMM_REQUIRE_GPU:-1}
start=$SECONDS

echo "== configure + build ($build, sm_90a, $jobs jobs; log: $logs/build.log)"
if ! { cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DWSGEMM_CUDA_ARCHS=90a \
             -DWSGEMM_SM100_EMULATION=OFF -DWSGEMM_BUILD_TOOLS=OFF -DWSGEMM_BUILD_BENCH=OFF &&
       cmake --build "$build" -j "$jobs" --target wsgemm wsgemm_shared package_version_test_shared \
             package_version_test_static; } > "$logs/build.log" 2>&1; then
    tail -40 "$logs/build.log"
    echo "consumer_check: FAIL: the build failed ($logs/build.log)"
    exit 1
fi
echo "   built in $((SECONDS - start)) s"

echo "== ctest -L package (WSGEMM_REQUIRE_GPU=$WSGEMM_REQUIRE_GPU; log: $logs/ctest.log)"
t0=$SECONDS
(cd "$build" && ctest -L package -j 4 -V --timeout 600) > "$logs/ctest.log" 2>&1
rc=$?
echo "   ran in $((SECONDS - t0)) s"

# the consumers', the example's and the Python suites' own result lines, then one row per ctest entry
grep -E "^[0-9]+: (.*(consumer\.cp?p?: (PASS|FAIL)|ring_rowsum: (PASS|FAIL)|SKIPPED)|Ran [0-9]+ tests|OK|FAILED)" \
    "$logs/ctest.log" | sed 's/^/   /' | head -60
echo
printf '%-32s %s\n' "check" "result"
awk '/Test +#[0-9]+: / {
       name = $0; sub(/.*Test +#[0-9]+: /, "", name); sub(/ .*/, "", name)
       r = "FAIL"; if ($0 ~ /Passed/) r = "PASS"; else if ($0 ~ /Skipped/) r = "SKIP"
       printf "%-32s %s\n", name, r }' "$logs/ctest.log" | sort
fails=$(grep -cE "Test +#[0-9]+: .*(Failed|Timeout|Not Run|Exception)" "$logs/ctest.log")
echo
if [ $rc -ne 0 ] || [ "$fails" -ne 0 ]; then
    echo "consumer_check: FAIL ($fails failed; ctest exit $rc; details in $logs/ctest.log) after $((SECONDS - start)) s"
    exit 1
fi
echo "consumer_check: PASS after $((SECONDS - start)) s"
