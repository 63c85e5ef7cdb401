# Finds LibTorch and defines ampbench::torch, the interface target every LibTorch-using target
# links. Installed with the package and run again when a consumer configures, so the consumer's own
# LibTorch is used and nothing of the tree that built ampbench is remembered.
#
# Where LibTorch comes from (the first that applies):
#   1. -DAMPBENCH_PYTHON=/path/to/python: that Python's torch (torch.utils.cmake_prefix_path);
#   2. a LibTorch CMake package find_package(Torch) already sees: -DTorch_DIR=..., or
#      CMAKE_PREFIX_PATH naming an unpacked LibTorch or a Python's torch.utils.cmake_prefix_path;
#   3. a Python with torch: the project's .venv (building ampbench itself), $VIRTUAL_ENV, python3.
#
# Why the extra link options: /usr/local/cuda/lib holds an older libnccl.so.2, and CMake puts
# that folder on the link rpath, so ld resolves libtorch_cuda.so's NCCL from it and fails
# (undefined ncclSignal ...). -rpath-link to a pip wheel's nvidia/*/lib folders makes ld see the
# libraries that libtorch_cuda.so really loads at run time through its own RPATH.
include_guard(GLOBAL)

set(AMPBENCH_PYTHON "" CACHE FILEPATH "Python interpreter whose torch provides LibTorch")

# Prints nothing, sets <out> to the CMake prefix of <python>'s torch; fails naming the interpreter.
function(_ampbench_python_torch_prefix python out)
  execute_process(COMMAND "${python}" -c "import torch; print(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE prefix RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ampbench: '${python} -c \"import torch\"' failed: no LibTorch there "
                        "(run scripts/bootstrap, or pass -DTorch_DIR or -DAMPBENCH_PYTHON)")
  endif()
  set(${out} "${prefix}" PARENT_SCOPE)
endfunction()

# Configuring must never probe for a GPU: name the architectures explicitly.
if(NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
  set(ENV{TORCH_CUDA_ARCH_LIST} "8.0;9.0")
endif()

# Sets <out> to -DAMPBENCH_PYTHON, else the Python of route 3 (see above).
function(_ampbench_python out)
  set(candidates "${AMPBENCH_PYTHON}" "$ENV{VIRTUAL_ENV}/bin/python")
  if(NOT AMPBENCH_TORCH_FOR_CONSUMER)  # the checkout's own venv, made by scripts/bootstrap
    list(INSERT candidates 1 "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../.venv/bin/python")
  endif()
  foreach(candidate IN LISTS candidates)
    if(candidate AND EXISTS "${candidate}")
      set(${out} "${candidate}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  find_program(AMPBENCH_PYTHON3 NAMES python3 REQUIRED)
  set(${out} "${AMPBENCH_PYTHON3}" PARENT_SCOPE)
endfunction()

if(NOT TARGET torch)  # a consumer that already called find_package(Torch) keeps its LibTorch
  if(NOT AMPBENCH_PYTHON)
    find_package(Torch CONFIG QUIET)
  endif()
  if(NOT Torch_FOUND)
    _ampbench_python(_ampbench_python)
    _ampbench_python_torch_prefix("${_ampbench_python}" _ampbench_torch_prefix)
    list(PREPEND CMAKE_PREFIX_PATH "${_ampbench_torch_prefix}")
    unset(Torch_DIR CACHE)  # a Torch_DIR cached for another Python must not win
    find_package(Torch REQUIRED CONFIG)
  endif()
endif()
if(NOT AMPBENCH_TORCH_FOR_CONSUMER)
  # The Python that runs ampbench's reference scripts and Python-side tests (torch, numpy,
  # jsonschema). The conformance tests want the same torch version as the LibTorch above.
  _ampbench_python(AMPBENCH_REFERENCE_PYTHON)
endif()

# Imported, in ampbench's own build as in a consumer's: an export then names it without exporting
# it, and each consumer makes its own. GLOBAL: find_package(ampbench) from a second folder of a
# consumer finds it already made.
add_library(ampbench::torch INTERFACE IMPORTED GLOBAL)
# The C++ runtime right after the binary's own code and before LibTorch. The torch 2.11 wheel on the
# GPU kit's H200 exports copies of std::filesystem's functions, and where its libraries came first
# the binary's calls bound to them: std::filesystem::remove_all(path) there jumped to address 0
# (six Ranks.* tests died of SIGSEGV; docs/building.md). That machine's compiler links libstdc++
# statically, so the archive here supplies the binary's calls from its own copy; elsewhere
# libstdc++.so.6 becomes the first library the dynamic linker searches.
target_link_libraries(ampbench::torch INTERFACE stdc++)
if(TORCH_LIBRARIES)
  target_link_libraries(ampbench::torch INTERFACE ${TORCH_LIBRARIES})
else()
  target_link_libraries(ampbench::torch INTERFACE torch)
endif()
# A pip wheel's torch sits next to its nvidia-* packages (site-packages/torch, site-packages/nvidia).
file(GLOB _ampbench_nvidia_lib_dirs LIST_DIRECTORIES true "${TORCH_INSTALL_PREFIX}/../nvidia/*/lib")
foreach(dir IN LISTS _ampbench_nvidia_lib_dirs)
  target_link_options(ampbench::torch INTERFACE "LINKER:-rpath-link,${dir}")
endforeach()
