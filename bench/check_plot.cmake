# ctest bench.plot: plot.py on a synthetic report (testdata/plot_fixture.json,
# made-up round numbers in wsgemm-bench's JSON shape) must write the table
# with the medians, list the error row, and, where matplotlib is installed,
# the PNGs. Usage: cmake -DPYTHON=<python3> -DSRC=<bench dir> -DOUT=<dir> -P check_plot.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PYTHON} ${SRC}/plot.py ${SRC}/testdata/plot_fixture.json --out ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "plot.py exited ${rc}:\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plot.py failed")
endif()
file(READ ${OUT}/table.md table)
set(failures "")
foreach(row "| square | 2048^3 | 400 | 440 | - | sm90 | 1.100 | 44.5 |"
            "| skinny | 1x8192x8192 | 5.0 | 2.5 | - | generic | 0.500 | 0.3 |"
            "| batched | 32x 2048x2048x128 TN | 200 | 300 | - | sm90 | 1.500 | 30.3 |"
            "| unaligned | 4099^3 | - | - | ERROR | - | - | - |"
            "- unaligned: 4099^3 wsgemm_sm90: WRONG RESULT vs cuBLAS: planted in the fixture")
  string(FIND "${table}" "${row}" at)
  if(at EQUAL -1)
    string(APPEND failures "\n  table.md lacks: ${row}")
  endif()
endforeach()
execute_process(COMMAND ${PYTHON} -c "import matplotlib" RESULT_VARIABLE no_matplotlib OUTPUT_QUIET ERROR_QUIET)
if(no_matplotlib EQUAL 0)
  foreach(png tflops_square tflops_skinny tflops_batched ratio_to_cublas)
    if(NOT EXISTS ${OUT}/${png}.png)
      string(APPEND failures "\n  ${png}.png not written")
    endif()
  endforeach()
  if(EXISTS ${OUT}/tflops_unaligned.png)
    string(APPEND failures "\n  tflops_unaligned.png drawn although that suite has only an error")
  endif()
else()
  message(STATUS "matplotlib is not installed: PNGs not checked")
endif()
if(failures)
  message(FATAL_ERROR "plot.py output is not as expected:${failures}\n--- table.md ---\n${table}")
endif()
message(STATUS "plot.py: table and plots as expected")
