# Finds LibTorch inside the project's Python virtual environment (or any Python with torch)
# and defines ampbench::torch, an interface target that every LibTorch-using target links.
# Installed with the package, so an out-of-tree consumer resolves LibTorch the same way.
#
# Why the extra link options: /usr/local/cuda/lib holds an older libnccl.so.2, and CMake puts
# that folder on the link rpath, so ld resolves libtorch_cuda.so's NCCL from it and fails
# (undefined ncclSignal ...). -rpath-link to the wheel's nvidia/*/lib folders makes ld see the
# libraries that libtorch_cuda.so really loads at run time through its own RPATH.
include_guard(GLOBAL)

set(AMPBENCH_PYTHON "" CACHE FILEPATH "Python interpreter whose torch provides LibTorch")
if(NOT AMPBENCH_PYTHON)
  foreach(candidate "${CMAKE_CURRENT_LIST_DIR}/../.venv/bin/python" "$ENV{VIRTUAL_ENV}/bin/python")
    if(EXISTS "${candidate}")
      set(AMPBENCH_PYTHON "${candidate}" CACHE FILEPATH "" FORCE)
      break()
    endif()
  endforeach()
endif()
if(NOT AMPBENCH_PYTHON)
  find_program(AMPBENCH_PYTHON_FOUND NAMES python3 REQUIRED)
  set(AMPBENCH_PYTHON "${AMPBENCH_PYTHON_FOUND}" CACHE FILEPATH "" FORCE)
endif()

execute_process(
  COMMAND "${AMPBENCH_PYTHON}" -c
    "import torch, site, os; print(torch.utils.cmake_prefix_path); print(os.path.dirname(os.path.dirname(torch.__file__)))"
  OUTPUT_VARIABLE _ampbench_torch_paths
  RESULT_VARIABLE _ampbench_torch_rc
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _ampbench_torch_rc EQUAL 0)
  message(FATAL_ERROR "ampbench: '${AMPBENCH_PYTHON} -c \"import torch\"' failed; run scripts/bootstrap")
endif()
string(REPLACE "\n" ";" _ampbench_torch_paths "${_ampbench_torch_paths}")
list(GET _ampbench_torch_paths 0 AMPBENCH_TORCH_CMAKE_PREFIX)
list(GET _ampbench_torch_paths 1 AMPBENCH_SITE_PACKAGES)

# Configuring must never probe for a GPU: name the architectures explicitly.
if(NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
  set(ENV{TORCH_CUDA_ARCH_LIST} "8.0;9.0")
endif()
list(PREPEND CMAKE_PREFIX_PATH "${AMPBENCH_TORCH_CMAKE_PREFIX}")
find_package(Torch REQUIRED)

# The installed package config sets AMPBENCH_TORCH_FIND_ONLY: it imports ampbench::torch itself.
if(NOT AMPBENCH_TORCH_FIND_ONLY AND NOT TARGET ampbench::torch)
  add_library(ampbench_torch INTERFACE)
  set_target_properties(ampbench_torch PROPERTIES EXPORT_NAME torch)
  add_library(ampbench::torch ALIAS ampbench_torch)
  target_link_libraries(ampbench_torch INTERFACE ${TORCH_LIBRARIES})
  file(GLOB _ampbench_nvidia_lib_dirs LIST_DIRECTORIES true "${AMPBENCH_SITE_PACKAGES}/nvidia/*/lib")
  foreach(dir IN LISTS _ampbench_nvidia_lib_dirs)
    target_link_options(ampbench_torch INTERFACE "LINKER:-rpath-link,${dir}")
  endforeach()
endif()
