// Internal: one training step of a workload in a mode. What differs between modes lives here and
// nowhere else: the autocast scope around the forward pass, and the GradScaler around backward and
// the optimizer step.
#pragma once

#include <ampbench/amp/grad_norm_recorder.h>
#include <ampbench/amp/grad_scaler.h>
#include <torch/optim/optimizer.h>

#include "ampbench/harness/mode.h"
#include "ampbench/workloads/workload.h"

namespace ampbench::harness::detail {

class GradientSync;

struct TrainingStep {
  workloads::Workload& workload;
  torch::optim::Optimizer& optimizer;
  amp::GradScaler* scaler;  // null when the mode has none
  // The unscaled global gradient norm of every step, on the device (no host sync); null: none.
  amp::GradNormRecorder* grad_norms;
  const Mode& mode;
  c10::DeviceType device_type;
  // Data parallel: arms the gradients' all-reduce before each backward; null in one process.
  GradientSync* sync = nullptr;

  // Runs one step and returns the detached loss, still on the device (no host sync here).
  // inject_overflow multiplies the loss by +inf first, forcing non-finite gradients.
  [[nodiscard]] torch::Tensor run(const workloads::Batch& batch, bool inject_overflow) const;
};

}  // namespace ampbench::harness::detail
