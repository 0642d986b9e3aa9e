# SPDX-License-Identifier: MIT
# ctest bench.cli.<tool>: the command-line conventions of one tool (bench/cli.h, tools/README.md), no GPU used:
#   <tool> --help           prints its usage ("usage: <name>") on stdout and exits 0
#   <tool> BAD_ARGS         a malformed number: exits 2 and names the flag (BAD_FLAG) on stderr, runs nothing
#   <tool> RUN_ARGS         well-formed flags with no GPU visible (CUDA_VISIBLE_DEVICES=-1, so the same on a GPU
#                           machine): says "no CUDA device on this machine" on stderr and exits 0
# Usage: cmake -DEXE=<tool> -DNAME=<its name> "-DBAD_ARGS=<args>" -DBAD_FLAG=<flag> "-DRUN_ARGS=<args>"
#        -P check_cli.cmake            (the argument lists separated by spaces)
separate_arguments(bad UNIX_COMMAND "${BAD_ARGS}")
separate_arguments(run UNIX_COMMAND "${RUN_ARGS}")
set(failures "")

execute_process(COMMAND ${EXE} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND failures "\n  --help exited ${rc}, not 0:\n${out}${err}")
elseif(NOT out MATCHES "usage: ${NAME}")
  string(APPEND failures "\n  --help printed no 'usage: ${NAME}' on stdout:\n${out}")
else()
  message(STATUS "ok: ${NAME} --help exits 0 with its usage")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=-1 ${EXE} ${bad}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REPLACE "+" "\\+" flag_re "${BAD_FLAG}")
if(NOT rc EQUAL 2)
  string(APPEND failures "\n  ${BAD_ARGS} exited ${rc}, not 2:\n${out}${err}")
elseif(NOT err MATCHES "${flag_re}")
  string(APPEND failures "\n  ${BAD_ARGS}: the message does not name ${BAD_FLAG}:\n${err}")
elseif(err MATCHES "no CUDA device")
  string(APPEND failures "\n  ${BAD_ARGS}: looked for a GPU before rejecting the arguments:\n${err}")
else()
  string(STRIP "${err}" first)
  string(REGEX REPLACE "\n.*" "" first "${first}")
  message(STATUS "ok: ${NAME} ${BAD_ARGS} exits 2: ${first}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=-1 ${EXE} ${run}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND failures "\n  ${RUN_ARGS} without a GPU exited ${rc}, not 0:\n${out}${err}")
elseif(NOT err MATCHES "${NAME}: no CUDA device on this machine")
  string(APPEND failures "\n  ${RUN_ARGS} without a GPU: no '${NAME}: no CUDA device on this machine' on stderr:\n"
         "${out}${err}")
else()
  message(STATUS "ok: ${NAME} ${RUN_ARGS} without a GPU says so on stderr and exits 0")
endif()

if(failures)
  message(FATAL_ERROR "${NAME} breaks the tools' command-line conventions:${failures}")
endif()
