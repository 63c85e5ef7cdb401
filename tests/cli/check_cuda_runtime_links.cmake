# The linking decision of docs/building.md, "Which CUDA libraries a process loads", checked on the built
# binary: ampbench reaches the CUDA runtime only through LibTorch (the wheel's libcudart), so it
# must not need libcudart itself; with CUDA it needs the toolkit's CUPTI.
# Usage: cmake -DBINARY=<ampbench> -DWITH_CUDA=<ON|OFF> -P check_cuda_runtime_links.cmake
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
message(STATUS "NEEDED: ${needed}")
