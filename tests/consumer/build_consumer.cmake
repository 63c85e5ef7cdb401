# cmake -P script: install, move the install elsewhere, check that its CMake files name nothing of
# the tree that built it, then configure the consumer against the moved copy with LibTorch given
# the way a LibTorch user gives it (CMAKE_PREFIX_PATH), build it and run it: RUN, a command run
# with the consumer's build folder as its last argument (by default its amp_consumer binary).
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/installed")
file(RENAME "${WORK_DIR}/installed" "${WORK_DIR}/moved")

# Relocatable: no path of the checkout (its build trees, its .venv) or of the first prefix.
file(GLOB_RECURSE package_files "${WORK_DIR}/moved/*.cmake")
if(NOT package_files)
  message(FATAL_ERROR "no CMake package files installed under ${WORK_DIR}/moved")
endif()
foreach(file IN LISTS package_files)
  file(READ "${file}" text)
  foreach(forbidden "${SOURCE_DIR}" "${BUILD_DIR}" "${WORK_DIR}/installed")
    string(FIND "${text}" "${forbidden}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${file} names '${forbidden}': the package would break when moved")
    endif()
  endforeach()
endforeach()

# LibTorch through the environment's CMAKE_PREFIX_PATH, ampbench through the cache's.
run("${CMAKE_COMMAND}" -E env "CMAKE_PREFIX_PATH=${TORCH_PREFIX}" --unset=VIRTUAL_ENV
    "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE}" -B "${WORK_DIR}/build" -G Ninja
    "-DCMAKE_PREFIX_PATH=${WORK_DIR}/moved" -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE} -DCMAKE_BUILD_TYPE=Release
    # The producer's flags: a library built with sanitizers needs them at the consumer's link too.
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
if(RUN)
  separate_arguments(run_command UNIX_COMMAND "${RUN}")
  run(${run_command} "${WORK_DIR}/build")
else()
  run("${WORK_DIR}/build/amp_consumer")
endif()
message("${last_output}")
