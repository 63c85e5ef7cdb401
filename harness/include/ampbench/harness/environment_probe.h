// Reads the machine, the software stack and the devices a run can use. Never throws for a missing
// GPU: the reason lands in Environment::cuda_status instead.
#pragma once

#include <optional>
#include <string>

#include "ampbench/reports/environment.h"

namespace ampbench::harness {

[[nodiscard]] reports::Environment probe_environment();

// How a GPU's compute mode (CUcomputemode / cudaComputeMode) reads in a report: "Default",
// "Exclusive Process", "Prohibited", "Exclusive Thread" (the old mode 1); "unknown (N)" for another
// value and "" when the driver could not say. Exclusive Process matters to ampbench: only one
// process may hold a context there, so isolated cells fail while another process holds one.
[[nodiscard]] std::string compute_mode_name(std::optional<int> cuda_compute_mode);

}  // namespace ampbench::harness
