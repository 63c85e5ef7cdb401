// The FLOPs of one training step of a workload, and where the figure came from: the workload's
// own formula when it states one, else counted. Counting runs one forward of batch 0 in eval mode
// (no BatchNorm statistics move, no dropout draws) without gradients, under an ampbench autocast
// scope whose kernels add up the FLOPs of matrix products, convolutions and attention from their
// shapes (amp/op_counters.h), and takes 3x that (backward: two products per forward product), the
// convention the built-in workloads state theirs by. Elementwise ops, norms and ops outside the
// autocast table (RNN cells on the CPU among them, when LibTorch runs them as one fused op) are
// not counted.
#pragma once

#include <string>

#include "ampbench/reports/report.h"
#include "ampbench/workloads/workload.h"

namespace ampbench::harness {

struct FlopFigure {
  double flops_per_step = 0.0;
  reports::FlopSource source = reports::FlopSource::kWorkload;
};

// Counted on the device the workload's batches are on.
[[nodiscard]] FlopFigure step_flops(workloads::Workload& workload);

}  // namespace ampbench::harness
