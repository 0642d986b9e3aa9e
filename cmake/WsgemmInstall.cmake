# SPDX-License-Identifier: MIT
# Install rules and package files (included from the top-level CMakeLists.txt when WSGEMM_INSTALL is on).
#
#   <prefix>/include/wsgemm.h                      the public C header
#   <prefix>/include/wsgemm/sync/*.cuh             device headers (wsgemm::device)
#   <prefix>/include/wsgemm/tmem/*.cuh, desc.h
#   <prefix>/include/wsgemm/emu/*.cuh, hb.h        the verification wing (wsgemm::emulation): the TMEM
#                                                  emulation and the happens-before checker, for sm_90a
#   <prefix>/lib/libwsgemm.so*, libwsgemm.a
#   <prefix>/libexec/wsgemm/wsgemm-sm100-selfcheck the sm100 self-check helper (builds with an sm100 path)
#   <prefix>/lib/cmake/wsgemm/                     find_package(wsgemm CONFIG): wsgemm::wsgemm (shared),
#                                                  wsgemm::wsgemm_static, wsgemm::device,
#                                                  wsgemm::emulation; version file
#   <prefix>/lib/pkgconfig/wsgemm.pc               the shared library
#   <prefix>/lib/pkgconfig/wsgemm-static.pc        the static library (names libwsgemm.a itself, so a
#                                                  plain -lwsgemm cannot pick the .so instead)
# Every installed file finds the others relative to itself, so `cmake --install build --prefix <p>` may
# pick any prefix. The CUDA runtime is found where this build found it (CUDAToolkit).
include(CMakePackageConfigHelpers)

set(WSGEMM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/wsgemm)
set(WSGEMM_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The installed libwsgemm.so finds libcudart through its RUNPATH also where the toolkit is not in the
# loader's path (LD_LIBRARY_PATH still comes first).
set_target_properties(wsgemm_shared PROPERTIES INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")

install(TARGETS wsgemm wsgemm_shared wsgemm_device wsgemm_emulation EXPORT wsgemmTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The sm100 self-check helper, where the library looks for it (gemm/CMakeLists.txt): libexec/wsgemm/.
# It holds what the installed library holds (no emulated kernel): the build tree's own helper is another one.
if(TARGET wsgemm_sm100_selfcheck_installed)
  set_target_properties(wsgemm_sm100_selfcheck_installed PROPERTIES INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
  install(TARGETS wsgemm_sm100_selfcheck_installed RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/wsgemm)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/include/wsgemm.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
foreach(dir sync tmem emu)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/wsgemm/${dir}
          FILES_MATCHING PATTERN "*.cuh" PATTERN "*.h")
endforeach()

install(EXPORT wsgemmTargets NAMESPACE wsgemm:: DESTINATION ${WSGEMM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/wsgemmConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/wsgemmConfig.cmake
                              INSTALL_DESTINATION ${WSGEMM_CMAKE_DIR})
# 0.x: a minor release may change the API and the ABI, so only the same major.minor is compatible (the
# SONAME, libwsgemm.so.0.<minor>, says the same: CMakeLists.txt); from 1.0 on, the same major.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_wsgemm_compatibility SameMinorVersion)
else()
  set(_wsgemm_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/wsgemmConfigVersion.cmake
                                 COMPATIBILITY ${_wsgemm_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/package/wsgemmConfig.cmake ${PROJECT_BINARY_DIR}/package/wsgemmConfigVersion.cmake
        DESTINATION ${WSGEMM_CMAKE_DIR})

# pkg-config: prefix relative to the .pc file (${pcfiledir}), so the files move with the prefix.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  message(FATAL_ERROR "wsgemm: the pkg-config files need a relative CMAKE_INSTALL_LIBDIR (got ${CMAKE_INSTALL_LIBDIR})")
endif()
file(RELATIVE_PATH WSGEMM_PC_TO_PREFIX /p/${WSGEMM_PKGCONFIG_DIR} /p)
string(REGEX REPLACE "/$" "" WSGEMM_PC_TO_PREFIX "${WSGEMM_PC_TO_PREFIX}")
list(GET CUDAToolkit_INCLUDE_DIRS 0 WSGEMM_PC_CUDA_INCLUDE)
set(WSGEMM_PC_CUDA_LIBDIR ${CUDAToolkit_LIBRARY_DIR})
foreach(pc wsgemm wsgemm-static)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/package/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/package/${pc}.pc DESTINATION ${WSGEMM_PKGCONFIG_DIR})
endforeach()
