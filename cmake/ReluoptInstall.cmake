# Installs the library for find_package(reluopt): the static library, its headers, a generated version header,
# and reluoptConfig.cmake with its version file (docs/API.md). The library is static, so its private
# dependencies are link dependencies of every consumer and reluoptConfig.cmake finds them too.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

configure_file(${PROJECT_SOURCE_DIR}/cmake/version.h.in ${PROJECT_BINARY_DIR}/include/reluopt/version.h @ONLY)
target_include_directories(reluopt_lib PUBLIC $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>)
set_target_properties(reluopt_lib PROPERTIES EXPORT_NAME reluopt OUTPUT_NAME reluopt)

set(RELUOPT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/reluopt)
install(TARGETS reluopt_lib EXPORT reluoptTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/reluopt ${PROJECT_BINARY_DIR}/include/reluopt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT reluoptTargets NAMESPACE reluopt:: DESTINATION ${RELUOPT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/reluoptConfig.cmake.in
  ${PROJECT_BINARY_DIR}/reluoptConfig.cmake INSTALL_DESTINATION ${RELUOPT_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/reluoptConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/reluoptConfig.cmake ${PROJECT_BINARY_DIR}/reluoptConfigVersion.cmake
  DESTINATION ${RELUOPT_CMAKE_DIR})
