// Internal: one training step of a workload in a mode. What differs between modes lives here and
// nowhere else: the autocast scope around the forward pass, and the GradScaler around backward and
// the optimizer step.
#pragma once

#include <ampbench/amp/grad_scaler.h>
#include <torch/optim/optimizer.h>

#include "ampbench/harness/mode.h"
#include "ampbench/workloads/workload.h"

namespace ampbench::harness::detail {

class GradientSync;
class LayerRangeRecorder;

struct TrainingStep {
  workloads::Workload& workload;
  torch::optim::Optimizer& optimizer;
  amp::GradScaler* scaler;  // null when the mode has none
  const Mode& mode;
  c10::DeviceType device_type;
  // Data parallel: arms the gradients' all-reduce before each backward; null in one process.
  GradientSync* sync = nullptr;
  // The numerics pass's per-module range statistics watch the forward; null in every timed step.
  LayerRangeRecorder* layer_ranges = nullptr;

  // Runs one step and returns the detached loss, still on the device (no host sync here). With a
  // scaler the gradients are unscaled in place before the optimizer step, so after it they hold the
  // unscaled gradients until the next step's zero_grad. inject_overflow multiplies the loss by +inf
  // first, forcing non-finite gradients.
  [[nodiscard]] torch::Tensor run(const workloads::Batch& batch, bool inject_overflow) const;
};

}  // namespace ampbench::harness::detail
