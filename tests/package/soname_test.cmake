# SPDX-License-Identifier: MIT
# soname_test.cmake - CPU test: the shared library's SONAME, the CMake package's compatibility rule and the
# Python module's library name say the same thing about which versions are one ABI.
#
#   cmake -DLIB=<libwsgemm.so> -DVERSION=<project version> -DCONFIG_VERSION=<wsgemmConfigVersion.cmake>
#         -DREADELF=<readelf> -DBINDING=<python/wsgemm/_binding.py> -P soname_test.cmake
#
# The rule (docs/api.md, "Version"): while the major version is 0 each minor release is its own ABI, so the
# SONAME is libwsgemm.so.0.<minor> and find_package accepts only the same major.minor; from 1.0 on, the
# SONAME is libwsgemm.so.<major> and the same major is accepted. Checked: the SONAME readelf reads is the
# rule's for VERSION; for each version asked of find_package, the package version file accepts it exactly
# when that version's SONAME (by the rule) is ours; the Python binding loads the rule's file name.
cmake_minimum_required(VERSION 3.25)

function(soname_of version out)
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${version}")
  if(CMAKE_MATCH_1 EQUAL 0)
    set(${out} "libwsgemm.so.0.${CMAKE_MATCH_2}" PARENT_SCOPE)
  else()
    set(${out} "libwsgemm.so.${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()

execute_process(COMMAND ${READELF} -d ${LIB} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FAIL: ${READELF} -d ${LIB} exited ${rc}")
endif()
string(REGEX MATCH "Library soname: \\[([^]]*)\\]" _ "${dyn}")
set(soname "${CMAKE_MATCH_1}")
soname_of(${VERSION} want)
if(NOT soname STREQUAL want)
  message(FATAL_ERROR "FAIL: ${LIB} has SONAME '${soname}'; version ${VERSION} by the rule: '${want}'")
endif()
message(STATUS "ok: SONAME ${soname} for version ${VERSION}")

string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${VERSION}")
set(major ${CMAKE_MATCH_1})
set(minor ${CMAKE_MATCH_2})
math(EXPR next_minor "${minor} + 1")
math(EXPR next_major "${major} + 1")
set(asked "${major}.${minor}" "${major}.${minor}.0" "${major}.${next_minor}" "${next_major}.0")
if(minor GREATER 0)
  math(EXPR prev_minor "${minor} - 1")
  list(APPEND asked "${major}.${prev_minor}")
endif()
if(major GREATER 0)
  math(EXPR prev_major "${major} - 1")
  list(APPEND asked "${prev_major}.${minor}")
endif()
set(failed 0)
foreach(v ${asked})
  set(PACKAGE_FIND_VERSION ${v})
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)(\\.([0-9]+))?" _ "${v}")
  set(PACKAGE_FIND_VERSION_MAJOR ${CMAKE_MATCH_1})
  set(PACKAGE_FIND_VERSION_MINOR ${CMAKE_MATCH_2})
  set(PACKAGE_FIND_VERSION_PATCH 0)
  set(PACKAGE_FIND_VERSION_COUNT 2)
  set(PACKAGE_FIND_VERSION_RANGE FALSE)
  unset(PACKAGE_VERSION_COMPATIBLE)
  include(${CONFIG_VERSION})
  soname_of(${v} theirs)
  if(theirs STREQUAL soname)
    set(same_abi TRUE)
  else()
    set(same_abi FALSE)
  endif()
  if(NOT PACKAGE_VERSION_COMPATIBLE STREQUAL same_abi AND NOT (PACKAGE_VERSION_COMPATIBLE AND same_abi))
    message(STATUS "FAIL: find_package(wsgemm ${v}) compatible = '${PACKAGE_VERSION_COMPATIBLE}', but its SONAME "
                   "${theirs} is ours (${soname}): ${same_abi}")
    set(failed 1)
  else()
    message(STATUS "ok: find_package(wsgemm ${v}): compatible '${PACKAGE_VERSION_COMPATIBLE}', SONAME ${theirs}")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "FAIL: the package version file and the SONAME disagree")
endif()

file(READ ${BINDING} binding)
string(FIND "${binding}" "\"${soname}\"" at)
if(at LESS 0)
  message(FATAL_ERROR "FAIL: ${BINDING} does not load \"${soname}\"")
endif()
message(STATUS "ok: the Python binding loads ${soname}")
