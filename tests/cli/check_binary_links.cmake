# The linking decisions of docs/building.md ("Which CUDA libraries a process loads", "The C++ runtime
# before LibTorch"), checked on the built binary: ampbench reaches the CUDA runtime only through
# LibTorch (the wheel's libcudart), so it must not need libcudart itself; with CUDA it needs the
# toolkit's CUPTI; and a shared libstdc++ comes before every LibTorch library, so the standard
# library's functions that LibTorch also exports bind to the standard library's own.
# Usage: cmake -DBINARY=<ampbench> -DWITH_CUDA=<ON|OFF> -P check_binary_links.cmake
execute_process(COMMAND readelf --dynamic "${BINARY}" OUTPUT_VARIABLE dynamic RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "readelf --dynamic ${BINARY} failed (${status})")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
if(NOT needed)
  message(FATAL_ERROR "${BINARY}: no NEEDED entries found; is readelf's output format different?")
endif()
if(needed MATCHES "libcudart")
  message(FATAL_ERROR "${BINARY} links libcudart directly; it must use LibTorch's runtime:\n${needed}")
endif()
if(WITH_CUDA AND NOT needed MATCHES "libcupti")
  message(FATAL_ERROR "${BINARY} was built with CUDA but does not need libcupti:\n${needed}")
endif()
# A compiler that links libstdc++ statically leaves it out of NEEDED: then the archive's place on the
# link line did the same job, and there is no order to check here.
set(first_torch -1)
set(runtime -1)
list(LENGTH needed count)
math(EXPR last "${count} - 1")
foreach(index RANGE ${last})
  list(GET needed ${index} entry)
  if(entry MATCHES "\\[lib(torch|c10)[^]]*\\.so" AND first_torch EQUAL -1)
    set(first_torch ${index})
  elseif(entry MATCHES "\\[libstdc\\+\\+\\.so")
    set(runtime ${index})
  endif()
endforeach()
if(runtime GREATER -1 AND first_torch GREATER -1 AND runtime GREATER first_torch)
  message(FATAL_ERROR "${BINARY} needs LibTorch before libstdc++: std::filesystem calls would bind "
                      "to LibTorch's exported copies (ampbench::torch must name stdc++ first):\n${needed}")
endif()
message(STATUS "NEEDED: ${needed}")
