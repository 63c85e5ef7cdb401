// Private: fills the GPU half of the environment. Implemented in cuda/gpu_environment.cpp when the
// CUDA toolkit is found, and in no_cuda/gpu_environment.cpp otherwise.
#pragma once

#include "ampbench/reports/environment.h"

namespace ampbench::harness::detail {

void probe_gpu_environment(reports::Environment& environment);

}  // namespace ampbench::harness::detail
