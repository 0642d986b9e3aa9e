# SPDX-License-Identifier: MIT
# package_test.cmake - what a project that uses wsgemm goes through, one ctest entry per way in.
#
#   cmake -DMODE=<mode> -DBUILD=<wsgemm build dir> -DSOURCE=<wsgemm source dir> -DWORK=<dir>
#         -DGENERATOR=<generator> -DCUDA_COMPILER=<nvcc> -DARCHS=<archs> -DLIBDIR=<CMAKE_INSTALL_LIBDIR>
#         [-DCC=... -DCXX=... -DPKG_CONFIG=...] -P package_test.cmake
#   install        cmake --install BUILD into WORK/prefix (the fixture of the others); checks the layout,
#                  and that the sm100 self-check helper (-DHELPER=<its path in the prefix>, when built) starts
#   find_package_shared / find_package_static
#                  tests/package/consumer configured against the prefix (find_package(wsgemm CONFIG),
#                  wsgemm::wsgemm / wsgemm::wsgemm_static; the shared one also compiles the installed
#                  device headers for sm_100a (wsgemm::device) and, through wsgemm::emulation, the same
#                  kernel for sm_90a against the installed emulation), built and run
#   pkg_config_shared / pkg_config_static
#                  consumer.c and consumer.cpp built with one plain compiler line each from
#                  `pkg-config --cflags --libs wsgemm` / `wsgemm-static`, and run
#   fetchcontent   the consumer adding the source tree with FetchContent (archs ARCHS, no emulation): it
#                  must get the library alone (no tests, tools or benchmarks), built and run
#   example        examples/ configured against the prefix, built for sm_90a and sm_100a, and run (the
#                  tcgen05 example: its emulated sm_90a build)
# A program that finds no GPU exits 77 and counts as run-skipped; with WSGEMM_REQUIRE_GPU=1 in the
# environment (the GPU machine) that is a failure. Any failed step fails the test with its output.
cmake_minimum_required(VERSION 3.25)
set(prefix ${WORK}/prefix)
if(NOT LIBDIR)
  set(LIBDIR lib)
endif()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${what} (exit ${rc})\n${out}")
  endif()
  message(STATUS "ok: ${what}")
endfunction()

function(run_program exe)
  execute_process(COMMAND ${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(STRIP "${out}" out)
  if(rc EQUAL 77 AND NOT "$ENV{WSGEMM_REQUIRE_GPU}" STREQUAL "1")
    message(STATUS "ran (no GPU here): ${exe}: ${out}")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${exe} exited ${rc}\n${out}")
  else()
    message(STATUS "ran: ${exe}: ${out}")
  endif()
endfunction()

# Configure + build a CMake project against the installed prefix.
function(build_project src bin)
  file(REMOVE_RECURSE ${bin})
  step("configure ${src}" ${CMAKE_COMMAND} -S ${src} -B ${bin} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
       -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} ${ARGN})
  step("build ${bin}" ${CMAKE_COMMAND} --build ${bin})
endfunction()

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE ${prefix})
  step("cmake --install ${BUILD} --prefix ${prefix}" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
  foreach(f include/wsgemm.h include/wsgemm/sync/pipeline.cuh include/wsgemm/sync/dealloc_barrier.cuh
            include/wsgemm/tmem/tmem.cuh include/wsgemm/tmem/dealloc_barrier_tmem.cuh
            include/wsgemm/emu/emulation.cuh include/wsgemm/emu/tmem_emu.cuh include/wsgemm/emu/hb.h
            ${LIBDIR}/libwsgemm.a ${LIBDIR}/libwsgemm.so
            ${LIBDIR}/cmake/wsgemm/wsgemmConfig.cmake ${LIBDIR}/cmake/wsgemm/wsgemmConfigVersion.cmake
            ${LIBDIR}/cmake/wsgemm/wsgemmTargets.cmake ${LIBDIR}/pkgconfig/wsgemm.pc
            ${LIBDIR}/pkgconfig/wsgemm-static.pc share/doc/wsgemm/LICENSE share/doc/wsgemm/CHANGELOG.md)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "FAIL: the install lacks ${f}")
    endif()
  endforeach()
  # the API folders hold the API only: the emulator and the checker are the wing's (include/wsgemm/emu/)
  file(GLOB misplaced ${prefix}/include/wsgemm/tmem/*emu* ${prefix}/include/wsgemm/tmem/hb*
       ${prefix}/include/wsgemm/sync/*emu* ${prefix}/include/wsgemm/sync/dealloc_barrier_tmem.cuh)
  if(misplaced)
    message(FATAL_ERROR "FAIL: the install's sync/ or tmem/ holds ${misplaced}")
  endif()
  if(HELPER)
    # the installed sm100 self-check helper starts (its libraries resolve) and answers a bad call with its
    # usage line and exit 2, before it touches CUDA
    execute_process(COMMAND ${prefix}/${HELPER} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 2 OR NOT out MATCHES "wsgemm-self-check: error usage")
      message(FATAL_ERROR "FAIL: the installed ${HELPER} exited ${rc}: ${out}")
    endif()
    message(STATUS "ok: ${HELPER} installed and starts")
  endif()
  file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
  list(LENGTH installed count)
  message(STATUS "ok: ${count} files installed, the expected ones among them")
elseif(MODE MATCHES "^find_package_(shared|static)$")
  set(link ${CMAKE_MATCH_1})
  set(bin ${WORK}/find_package_${link})
  if(link STREQUAL "shared")
    set(device ON)
  else()
    set(device OFF)
  endif()
  build_project(${SOURCE}/tests/package/consumer ${bin} -DCONSUMER_LINK=${link} -DCONSUMER_DEVICE_HEADERS=${device})
  run_program(${bin}/consumer_c)
  run_program(${bin}/consumer_cxx)
elseif(MODE MATCHES "^pkg_config_(shared|static)$")
  if(CMAKE_MATCH_1 STREQUAL "shared")
    set(pc wsgemm)
  else()
    set(pc wsgemm-static)
  endif()
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs ${pc} RESULT_VARIABLE rc OUTPUT_VARIABLE flags
                  ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${PKG_CONFIG} --variable=libdir ${pc} OUTPUT_VARIABLE libdir OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: pkg-config ${pc}: ${err}")
  endif()
  message(STATUS "pkg-config --cflags --libs ${pc}: ${flags}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(bin ${WORK}/pkg_config_${pc})
  file(REMOVE_RECURSE ${bin})
  file(MAKE_DIRECTORY ${bin})
  set(src ${SOURCE}/tests/package/consumer)
  step("${CC} consumer.c $(pkg-config --cflags --libs ${pc})"
       ${CC} -std=c11 -O2 ${src}/consumer.c -o ${bin}/consumer_c ${flags} -lm -Wl,-rpath,${libdir})
  step("${CXX} consumer.cpp $(pkg-config --cflags --libs ${pc})"
       ${CXX} -std=c++11 -O2 ${src}/consumer.cpp -o ${bin}/consumer_cxx ${flags} -Wl,-rpath,${libdir})
  run_program(${bin}/consumer_c)
  run_program(${bin}/consumer_cxx)
elseif(MODE STREQUAL "fetchcontent")
  set(bin ${WORK}/fetchcontent)
  build_project(${SOURCE}/tests/package/consumer ${bin} -DCONSUMER_WSGEMM_SOURCE=${SOURCE}
                "-DWSGEMM_CUDA_ARCHS=${ARCHS}" -DWSGEMM_SM100_EMULATION=OFF)
  # The library alone: the tests/ and bench/ folders were never added, nothing needs cuBLAS or OpenMP.
  foreach(absent tests bench wsgemm-run)
    if(EXISTS ${bin}/_deps/wsgemm-build/${absent})
      message(FATAL_ERROR "FAIL: the FetchContent build holds ${absent}: a consumer must get the library alone")
    endif()
  endforeach()
  file(READ ${bin}/CMakeCache.txt cache)
  if(cache MATCHES "OpenMP_C_FLAGS" OR cache MATCHES "benchmark_DIR")
    message(FATAL_ERROR "FAIL: the FetchContent configure looked for OpenMP or Google Benchmark")
  endif()
  message(STATUS "ok: the FetchContent build holds the library alone")
  run_program(${bin}/consumer_c)
  run_program(${bin}/consumer_cxx)
elseif(MODE STREQUAL "example")
  set(bin ${WORK}/example)
  build_project(${SOURCE}/examples ${bin})
  run_program(${bin}/ring_rowsum)
  run_program(${bin}/tcgen05_gemm) # the emulated build: runs on an H100/H200, exits 77 elsewhere
else()
  message(FATAL_ERROR "package_test.cmake: unknown MODE '${MODE}'")
endif()
