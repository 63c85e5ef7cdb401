// A program on ampbench::main with the two seeded numerics defects of
// support/numerics_defect_workloads.h registered as user workloads, so that tests through the real
// binary can check that each is caught and the layer named.
#include <ampbench/workloads/registry.h>

#include "support/numerics_defect_workloads.h"

AMPBENCH_WORKLOAD("loud-layer", "an MLP whose middle layer's output overflows float16",
                  [](const ampbench::workloads::WorkloadOptions& options) {
                    return std::make_unique<ampbench::testing::LoudLayerRegression>(options);
                  });
AMPBENCH_WORKLOAD("tiny-loss", "an MLP whose loss is in units of 2^-24: float16 gradients underflow unscaled",
                  [](const ampbench::workloads::WorkloadOptions& options) {
                    return std::make_unique<ampbench::testing::TinyLossRegression>(options);
                  });
