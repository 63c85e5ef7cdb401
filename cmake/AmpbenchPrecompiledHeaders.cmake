# One precompiled <torch/torch.h> shared by every LibTorch-using target (REUSE_FROM): on a 2-core
# AMD EPYC (g++ 12, -O2 -g) a workload TU costs 48 s of CPU without it and 22 s with it; building
# the PCH once costs 71 s and 0.74 GB of disk with -g1. ccache needs the pch sloppiness to cache
# TUs that include a PCH. With the unity build (CMakeLists.txt) a batch of TUs loads it once.
option(AMPBENCH_PRECOMPILED_HEADERS "Precompile LibTorch's headers once for all targets" ON)

if(AMPBENCH_PRECOMPILED_HEADERS)
  add_library(ampbench_torch_pch OBJECT "${CMAKE_CURRENT_LIST_DIR}/torch_pch_anchor.cpp")
  target_link_libraries(ampbench_torch_pch PRIVATE ampbench::torch)
  target_precompile_headers(ampbench_torch_pch PRIVATE <torch/torch.h>)
  ampbench_target_warnings(ampbench_torch_pch)
endif()

# ampbench_use_torch_pch(<target>): compile <target> against the shared LibTorch PCH.
function(ampbench_use_torch_pch target)
  if(AMPBENCH_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} REUSE_FROM ampbench_torch_pch)
  endif()
endfunction()
