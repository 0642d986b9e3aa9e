# ctest bench.list_suites: run `wsgemm-bench --benchmark_list_tests` (no GPU
# needed) and check that every suite and the always-present implementations
# are listed. Usage: cmake -DBENCH=<path to wsgemm-bench> -P check_list.cmake
execute_process(COMMAND ${BENCH} --benchmark_list_tests RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "wsgemm-bench --benchmark_list_tests exited with ${rc}\n${out}${err}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
list(LENGTH lines count)
set(missing "")
foreach(suite square llm skinny unaligned batched ops types)
  foreach(impl cublas cublaslt wsgemm_auto wsgemm_generic)
    if(NOT out MATCHES "(^|\n)${suite}/${impl}/")
      list(APPEND missing "${suite}/${impl}")
    endif()
  endforeach()
endforeach()
# A few shapes the suites promise.
foreach(name "square/cublas/NN_bf16_bf16/m:2688/n:2688/k:2688/manual_time"
             "llm/wsgemm_auto/NN_bf16_bf16/m:4096/n:14336/k:4096/manual_time"
             "skinny/wsgemm_auto/NN_bf16_bf16/m:1/n:8192/k:8192/manual_time"
             "unaligned/wsgemm_auto/NN_bf16_bf16/m:4099/n:4099/k:4099/manual_time"
             "ops/wsgemm_auto/TT_bf16_bf16/m:8192/n:8192/k:8192/manual_time"
             "types/wsgemm_auto/NN_f16_f32/m:8192/n:8192/k:8192/manual_time")
  list(FIND lines "${name}" found)
  if(found EQUAL -1)
    list(APPEND missing "${name}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "not listed: ${missing}\n--- listing (${count} lines) ---\n${out}")
endif()
message(STATUS "wsgemm-bench lists ${count} benchmarks; every suite and implementation is there")
