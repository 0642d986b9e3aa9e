# scripts/sm90_check_lib.sh - sourced by scripts/perf_check.sh and scripts/hybrid_check.sh: the steps both
# take on the H200 (a build of the sm90 path with its ptxas report, test cases run alone under a timeout,
# wsgemm-run side by side with cuBLAS per shape, the summary) around their own cases and shapes.
#
#   check_init NAME DEFAULT_DIR   logs in a fresh work folder, archived as NAME.tgz in $WSGEMM_LOG_DIR
#                                 (DEFAULT_DIR when unset) by `pack` after each step: a run killed by a time
#                                 limit still leaves the logs of the steps that finished; `note LINE` adds a
#                                 summary line
#   check_build BIN TARGET...     cmake --preset h200 into BIN (no emulated sm100 kernel, ptxas report on) and
#                                 build TARGETs with every core; the summary gets the sm90 kernels' registers
#                                 and spills; exits 1 when the build fails
#   check_alone NAME CASE         sm90_gemm_test CASE alone under 120 s (a hang costs 2 minutes); its summary
#                                 line is NAME's; sets alone_hung to 1 when it was killed
#   run_shape LOG SECS "ENV" ARGS...
#                                 wsgemm-run ARGS (20 rounds, the plan printed) with ENV, killed after SECS; sets
#                                 rs_path rs_ws_ms rs_cb_ms rs_ratio rs_host rs_held rs_check from its output
#   check_finish                  the table ($work/table.md, from the array `table`) and the summary, archived

check_init() {
  check_name=$1
  out=${WSGEMM_LOG_DIR:-$2}
  work=$(mktemp -d "/tmp/wsgemm-$1-check.XXXXXX")
  mkdir -p "$out"
  summary=()
  t0=$SECONDS
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$work/gpu.txt" 2>&1 || true
}
pack() { tar czf "$out/$check_name.tgz" -C "$work" . 2>/dev/null; true; }
note() { summary+=("$1"); echo "$1"; }

check_build() {
  bin=$1
  shift
  if ! { cmake --preset h200 -B "$bin" -DWSGEMM_SM100_EMULATION=OFF -DWSGEMM_PTXAS_VERBOSE=ON &&
         cmake --build "$bin" -j "$(nproc)" --target "$@"; } >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log"; pack; echo "BUILD FAILED (log in $check_name.tgz)"; exit 1
  fi
  local spills regs
  spills=$(grep -A2 "Compiling entry function '_Z16sm90_gemm_kernel" "$work/build.log" | grep -c "[1-9][0-9]* bytes spill")
  regs=$(grep -A3 "Compiling entry function '_Z16sm90_gemm_kernel" "$work/build.log" | grep -o "Used [0-9]* registers" | sort | uniq -c | tr '\n' ' ')
  note "build      $((SECONDS - t0)) s; sm90 kernels: $regs; kernels with spills: $spills"
  pack
}

check_alone() {
  local name=$1 case=$2 rc
  timeout 120 "$bin/tests/sm90/sm90_gemm_test" "$case" >"$work/$case.log" 2>&1
  rc=$?
  alone_hung=0
  [ $rc = 124 ] && alone_hung=1
  note "$(printf '%-10s' "$name") sm90_gemm_test $case: $([ $rc = 0 ] && echo PASS || { [ $rc = 124 ] && echo 'HUNG (killed after 120 s)' || echo "FAILED ($rc)"; }) $(grep -E "^sm90 $case" "$work/$case.log")"
  grep -E "^FAIL" "$work/$case.log" | head -5 | sed 's/^/           /'
}

run_shape() {
  local log=$1 secs=$2 envs=$3 ws cb
  shift 3
  env $envs WSGEMM_SM90_DEBUG=1 timeout "$secs" "$bin/wsgemm-run" "$@" --reps 20 >"$log" 2>&1
  [ $? = 124 ] && echo "TIMED OUT after $secs s" >>"$log"
  ws=$(grep -E '^wsgemm +[a-z0-9-]+ +[0-9]' "$log" | head -1) # not the plan lines (wsgemm sm90: ...)
  cb=$(grep -E '^cuBLAS ' "$log" | head -1)
  rs_path=$(echo "$ws" | awk '{print $2}')
  rs_ws_ms=$(echo "$ws" | awk '{print $3}')
  rs_cb_ms=$(echo "$cb" | awk '{print $3}')
  rs_ratio=$(echo "$ws" | awk '{print $5}')
  rs_host="$(echo "$ws" | awk '{print $6}') / $(echo "$cb" | awk '{print $6}')"
  rs_held=$(grep -oE '\([0-9]+ of [0-9]+ rounds held\)' "$log" | tr -d '()' | sed 's/ rounds held//')
  rs_check=$(grep -m1 '^check' "$log" | awk '{print $2}')
}

check_finish() {
  printf '%s\n' "${table[@]}" >"$work/table.md"
  pack
  echo
  echo "== summary ($(date -u +%Y-%m-%dT%H:%MZ), $(cat "$work/gpu.txt"), $((SECONDS - t0)) s)"
  printf '%s\n' "${summary[@]}"
  cat "$work/table.md"
}
