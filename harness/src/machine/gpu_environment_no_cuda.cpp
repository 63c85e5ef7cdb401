// Built only when the CUDA toolkit was not found: GPUs cannot be used by this build at all.
#include "machine/gpu_environment.h"

namespace ampbench::harness::detail {

void probe_gpu_environment(reports::Environment& environment) {
  environment.cuda_status = "unavailable: ampbench was built without the CUDA toolkit";
}

std::optional<std::string> pci_bus_id(const c10::Device& /*device*/) { return std::nullopt; }

}  // namespace ampbench::harness::detail
