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

# LibTorch (and the prefixes the producer took its other dependencies from) through the
# environment's CMAKE_PREFIX_PATH, ampbench through the cache's. No ccache where the producer had none.
string(REPLACE "|" ":" dependency_prefixes "${DEPENDENCY_PREFIXES}")
set(environment_prefixes "${TORCH_PREFIX}")
if(dependency_prefixes)
  string(APPEND environment_prefixes ":${dependency_prefixes}")
endif()
set(launcher "")
if(CCACHE)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE})
endif()
set(configure "${CMAKE_COMMAND}" -E env "CMAKE_PREFIX_PATH=${environment_prefixes}" --unset=VIRTUAL_ENV
    "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE}" -G Ninja "-DCMAKE_PREFIX_PATH=${WORK_DIR}/moved"
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${launcher} -DCMAKE_BUILD_TYPE=Release
    # The producer's flags: a library built with sanitizers needs them at the consumer's link too.
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
run(${configure} -B "${WORK_DIR}/build")
# The same consumer where SQLite3 cannot be found: one of ampbench::amp alone configures all the
# same (WITHOUT_SQLITE "configures"); one of the component main fails, and the error names SQLite3
# ("is refused"). Checked before the consumer's "ok" below, which is all ctest looks for.
execute_process(COMMAND ${configure} -B "${WORK_DIR}/without-sqlite" -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(WITHOUT_SQLITE STREQUAL "configures" AND NOT rc EQUAL 0)
  message(FATAL_ERROR "ampbench::amp alone must not need SQLite3; the configure exited ${rc}:\n${out}\n${err}")
elseif(WITHOUT_SQLITE STREQUAL "is refused" AND (rc EQUAL 0 OR NOT err MATCHES "not found here: SQLite3[ \n]"))
  message(FATAL_ERROR "without SQLite3 the configure must fail naming it; it exited ${rc}:\n${out}\n${err}")
endif()
# ccache keys the consumer's paths relative to the checkout, as it does the producer's, so that a
# second clone compiles the consumer from the first one's cache.
run("${CMAKE_COMMAND}" -E env "CCACHE_BASEDIR=${SOURCE_DIR}" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
if(RUN)
  separate_arguments(run_command UNIX_COMMAND "${RUN}")
  run(${run_command} "${WORK_DIR}/build")
else()
  run("${WORK_DIR}/build/amp_consumer")
endif()
message("${last_output}")
