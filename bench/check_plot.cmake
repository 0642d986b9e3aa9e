# SPDX-License-Identifier: MIT
# ctest bench.plot: plot.py on a synthetic report (testdata/plot_fixture.json,
# made-up round numbers in wsgemm-bench's JSON shape) must write the table
# with the medians and the host columns, take cuBLAS from the counters where a
# shape has no cuBLAS row (beta1), keep the grid out of the table but write its
# ratios to grid.md, list the error row, and, where matplotlib is installed,
# the PNGs (the heat map included). Usage: cmake -DPYTHON=<python3> -DSRC=<bench dir> -DOUT=<dir> -P check_plot.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PYTHON} ${SRC}/plot.py ${SRC}/testdata/plot_fixture.json --out ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "plot.py exited ${rc}:\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plot.py failed")
endif()
file(READ ${OUT}/table.md table)
set(failures "")
foreach(row "| square | 2048^3 | 400 | 440 | - | sm90 | 1.100 | 44.5 | 13.0 | 18.0 |"
            "| decode | 1x8192x8192 | 5.0 | 2.5 | - | generic | 0.500 | 0.3 | 20.0 | 18.0 |"
            "| decode | 8x4096x14336 | 40.0 | 36.0 | - | sm90 | 0.900 | 3.6 | 14.0 | 18.0 |"
            "| batched | 32x 2048x2048x128 TN | 200 | 300 | - | sm90 | 1.500 | 30.3 | 13.0 | 18.0 |"
            "| beta1 | 4096^3 beta=1 | 750 | 600 | - | sm90 | 0.800 | 60.7 | 15.0 | 19.0 |"
            "| unaligned | 4099^3 | - | - | ERROR | - | - | - | - | - |"
            "- grid: 8 shapes (of 8), wsgemm_auto/cuBLAS median 0.955, min 0.800, max 1.110, >= 1.0 on 4 (50 %)"
            "- unaligned: 4099^3 wsgemm_sm90: WRONG RESULT vs cuBLAS: planted in the fixture")
  string(FIND "${table}" "${row}" at)
  if(at EQUAL -1)
    string(APPEND failures "\n  table.md lacks: ${row}")
  endif()
endforeach()
if(table MATCHES "\\| grid \\|")
  string(APPEND failures "\n  table.md lists grid rows (they belong in grid.md)")
endif()
# grid.md: one m x n table per k, the ratios of the fixture
file(READ ${OUT}/grid.md grid)
foreach(row "### grid: k = 4096, wsgemm_auto GPU time ratio to cuBLAS (rows m, columns n)"
            "| 512 | 0.81 | 1.01 |" "| 1000 | 0.91 | 1.11 |")
  string(FIND "${grid}" "${row}" at)
  if(at EQUAL -1)
    string(APPEND failures "\n  grid.md lacks: ${row}")
  endif()
endforeach()
execute_process(COMMAND ${PYTHON} -c "import matplotlib" RESULT_VARIABLE no_matplotlib OUTPUT_QUIET ERROR_QUIET)
if(no_matplotlib EQUAL 0)
  foreach(png tflops_square tflops_decode tflops_batched tflops_beta1 ratio_to_cublas heatmap_grid)
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
