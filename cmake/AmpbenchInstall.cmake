# Installs ampbench::amp (the autocast scope and GradScaler) as a CMake package, so a LibTorch
# project can do find_package(ampbench) and link ampbench::amp.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(AMPBENCH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ampbench")
# ampbench::torch is not exported: the package config makes it from the consumer's LibTorch.
# The include folder comes from ampbench_amp's INSTALL_INTERFACE alone.
install(TARGETS ampbench_amp EXPORT ampbenchTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY amp/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ampbenchTargets NAMESPACE ampbench:: DESTINATION ${AMPBENCH_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/ampbenchConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/ampbenchConfig.cmake" INSTALL_DESTINATION ${AMPBENCH_INSTALL_CMAKEDIR})
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/ampbenchConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/ampbenchConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/ampbenchConfigVersion.cmake"
              cmake/AmpbenchTorch.cmake
        DESTINATION ${AMPBENCH_INSTALL_CMAKEDIR})
