# SPDX-License-Identifier: MIT
# size_test.cmake - CPU test: the shared library a release build of all three architectures makes stays
# within its size budget (docs/architecture.md, "Build budget"): every kernel configuration costs SASS for
# its architecture, and configurations the plan cannot choose do not belong in what users install.
#
#   cmake -DLIB=<libwsgemm.so> -DBUDGET=<bytes> -P size_test.cmake
cmake_minimum_required(VERSION 3.25)

file(SIZE "${LIB}" size)
message(STATUS "${LIB}: ${size} bytes (budget ${BUDGET})")
if(size GREATER BUDGET)
  message(FATAL_ERROR "FAIL: libwsgemm.so is ${size} bytes, over its budget of ${BUDGET}")
endif()
message(STATUS "PASS: ${size} bytes <= ${BUDGET}")
