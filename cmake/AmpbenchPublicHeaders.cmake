# ampbench_public_headers(<target>): the target's include/ folder is its public headers in the
# build tree, and the install's include folder once installed (where AmpbenchInstall.cmake copies
# every library's headers).
function(ampbench_public_headers target)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endfunction()
