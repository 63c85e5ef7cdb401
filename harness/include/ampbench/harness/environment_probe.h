// Reads the machine, the software stack and the devices a run can use. Never throws for a missing
// GPU: the reason lands in Environment::cuda_status instead.
#pragma once

#include "ampbench/reports/environment.h"

namespace ampbench::harness {

[[nodiscard]] reports::Environment probe_environment();

}  // namespace ampbench::harness
