// Private: fills the GPU half of the environment. Implemented in gpu_environment_cuda.cpp when the
// CUDA toolkit is found, and in gpu_environment_no_cuda.cpp otherwise (harness/CMakeLists.txt
// picks one by AMPBENCH_WITH_CUDA).
#pragma once

#include <c10/core/Device.h>

#include <optional>
#include <string>

#include "ampbench/reports/environment.h"

namespace ampbench::harness::detail {

// The stack's CUDA versions and every visible GPU, with its clock settings where NVML can be loaded.
void probe_gpu_environment(reports::Environment& environment);

// The PCI bus id NVML opens a GPU by ("00000000:41:00.0"); nullopt on the CPU and without CUDA.
[[nodiscard]] std::optional<std::string> pci_bus_id(const c10::Device& device);

}  // namespace ampbench::harness::detail
