// Private: fills the GPU half of the environment. Implemented in gpu_environment_cuda.cpp when the
// CUDA toolkit is found, and in gpu_environment_no_cuda.cpp otherwise (harness/CMakeLists.txt
// picks one by AMPBENCH_WITH_CUDA).
#pragma once

#include "ampbench/reports/environment.h"

namespace ampbench::harness::detail {

void probe_gpu_environment(reports::Environment& environment);

}  // namespace ampbench::harness::detail
