// Built only when the CUDA toolkit was not found: GPUs cannot be used by this build at all.
#include "machine/gpu_environment.h"

namespace ampbench::harness::detail {

void probe_gpu_environment(reports::Environment& environment) {
  environment.cuda_status = "unavailable: ampbench was built without the CUDA toolkit";
}

}  // namespace ampbench::harness::detail
