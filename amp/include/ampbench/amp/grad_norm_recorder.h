// Gradient-norm telemetry: the global L2 norm of the (unscaled) gradients, one value per training
// step, recorded on the device so that watching it adds no host synchronisation to the step, and
// read back once at the end. Worth watching with any dtype, BF16 included: a norm that climbs
// or turns non-finite is the early sign of a diverging run.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <vector>

#include "ampbench/amp/detail/step_history.h"
#include "ampbench/amp/grad_scaler.h"

namespace ampbench::amp {

// The norm is that of all gradients as one vector, as torch.nn.utils.get_total_norm (and
// clip_grad_norm_) compute it: the L2 norm of the per-tensor L2 norms, each taken in float32
// (float64 for float64 gradients). A step whose gradients hold inf or NaN (a step GradScaler
// skips) records inf or NaN, so a reader flags it by the value alone.
//
// Host synchronisations: record() none (for dense gradients; a sparse CUDA gradient is coalesced,
// which syncs); norms() one for the whole history (host_syncs() counts it, as
// GradScaler::host_syncs() counts the scaler's).
class GradNormRecorder {
 public:
  // The norm of the optimizer's gradients as they are now: a loop without a scaler (FP32, BF16),
  // or one that has already unscaled them. Throws when no parameter has a gradient.
  void record(const torch::optim::Optimizer& optimizer);

  // The norm of the unscaled gradients of a scaled loop, whether or not scaler.unscale_(optimizer)
  // has run: still-scaled gradients are multiplied by 1/scale on the device. Call it after
  // backward and before scaler.step(optimizer) (it throws after). A disabled scaler: as above.
  void record(const torch::optim::Optimizer& optimizer, const GradScaler& scaler);

  // The norm of these parameters' gradients as they are now (unscaled ones: see above).
  void record(const std::vector<at::Tensor>& params);

  // One value per record() since construction or clear(), in order; inf and NaN as recorded.
  [[nodiscard]] std::vector<double> norms() const;
  [[nodiscard]] std::int64_t size() const { return history_.size(); }
  void clear() { history_.clear(); }

  [[nodiscard]] std::int64_t host_syncs() const { return host_syncs_; }

 private:
  void record_grads(const std::vector<at::Tensor>& grads, const at::Tensor& inv_scale, const char* caller);

  // float32 norms on the device of the first recorded gradient.
  detail::StepHistory history_{1};
  mutable std::int64_t host_syncs_ = 0;
};

}  // namespace ampbench::amp
