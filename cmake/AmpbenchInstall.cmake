# Installs ampbench as a CMake package. ampbench::amp (the autocast scope and GradScaler) needs
# only LibTorch. ampbench::main (the whole CLI as a library) and the workload API under it
# (ampbench::workloads, ampbench::harness, ampbench::reports) also need nlohmann_json and CLI11,
# and the CUDA toolkit when ampbench was built with it; the config loads them as the component
# "main" when those are found.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(AMPBENCH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ampbench")
# ampbench::torch is not exported: the package config makes it from the consumer's LibTorch.
install(TARGETS ampbench_amp EXPORT ampbenchTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT ampbenchTargets NAMESPACE ampbench:: DESTINATION ${AMPBENCH_INSTALL_CMAKEDIR})

set(ampbench_main_targets ampbench_reports ampbench_history ampbench_workloads ampbench_kernel_classifier
    ampbench_device_meters ampbench_harness
    ampbench_report_commands ampbench_cli ampbench_main)
if(AMPBENCH_WITH_CUDA)
  list(APPEND ampbench_main_targets ampbench_kernel_activity ampbench_cupti)
endif()
install(TARGETS ${ampbench_main_targets} EXPORT ampbenchMainTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT ampbenchMainTargets NAMESPACE ampbench:: DESTINATION ${AMPBENCH_INSTALL_CMAKEDIR})
foreach(library amp reports history workloads harness)
  install(DIRECTORY ${library}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()

configure_package_config_file(cmake/ampbenchConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/ampbenchConfig.cmake" INSTALL_DESTINATION ${AMPBENCH_INSTALL_CMAKEDIR})
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/ampbenchConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/ampbenchConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/ampbenchConfigVersion.cmake"
              cmake/AmpbenchTorch.cmake
        DESTINATION ${AMPBENCH_INSTALL_CMAKEDIR})
