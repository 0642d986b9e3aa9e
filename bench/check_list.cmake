# SPDX-License-Identifier: MIT
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
foreach(suite square llm decode beta1 f32c unaligned batched ops types)
  foreach(impl cublas cublaslt wsgemm_auto wsgemm_generic)
    if(NOT out MATCHES "(^|\n)${suite}/${impl}/")
      list(APPEND missing "${suite}/${impl}")
    endif()
  endforeach()
endforeach()
# The grid: wsgemm_auto only (its rows carry cuBLAS's time of the same rounds), 8^3 shapes.
string(REGEX MATCHALL "(^|\n)grid/wsgemm_auto/[^\n]*" grid_rows "${out}")
list(LENGTH grid_rows grid_count)
if(NOT grid_count EQUAL 512)
  list(APPEND missing "grid: ${grid_count} wsgemm_auto rows instead of 512")
endif()
if(out MATCHES "(^|\n)grid/cublas")
  list(APPEND missing "grid lists cuBLAS rows (it should time wsgemm_auto only)")
endif()
# A few shapes the suites promise.
foreach(name "square/cublas/NN_bf16_bf16/m:2688/n:2688/k:2688/iterations:20/manual_time"
             "square/wsgemm_auto/NN_bf16_bf16/m:15360/n:15360/k:15360/iterations:20/manual_time"
             "llm/wsgemm_auto/NN_bf16_bf16/m:8192/n:28672/k:14336/iterations:20/manual_time"
             "llm/wsgemm_auto/NN_bf16_bf16/m:5000/n:7000/k:3000/iterations:20/manual_time"
             "decode/wsgemm_auto/NN_bf16_bf16/m:1/n:8192/k:8192/iterations:20/manual_time"
             "decode/wsgemm_auto/NN_bf16_bf16/m:128/n:4096/k:14336/iterations:20/manual_time"
             "beta1/wsgemm_auto/NN_bf16_bf16/m:4096/n:4096/k:4096/beta:1/iterations:20/manual_time"
             "f32c/wsgemm_auto/NN_bf16_f32/m:8192/n:8192/k:8192/beta:1/iterations:20/manual_time"
             "f32c/wsgemm_auto/NN_bf16_f32/m:8192/n:8192/k:1024/iterations:20/manual_time"
             "unaligned/wsgemm_auto/NN_bf16_bf16/m:4099/n:4099/k:4099/iterations:20/manual_time"
             "batched/wsgemm_auto/NN_bf16_bf16/m:512/n:512/k:512/batch:64/iterations:20/manual_time"
             "ops/wsgemm_auto/TT_bf16_bf16/m:8192/n:8192/k:8192/iterations:20/manual_time"
             "types/wsgemm_auto/NN_f16_f32/m:8192/n:8192/k:8192/iterations:20/manual_time"
             "grid/wsgemm_auto/NN_bf16_bf16/m:1000/n:16384/k:512/iterations:20/manual_time")
  list(FIND lines "${name}" found)
  if(found EQUAL -1)
    list(APPEND missing "${name}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "not listed: ${missing}\n--- listing (${count} lines) ---\n${out}")
endif()
message(STATUS "wsgemm-bench lists ${count} benchmarks; every suite and implementation is there")
