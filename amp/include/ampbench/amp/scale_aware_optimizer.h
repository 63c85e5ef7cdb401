// The contract between GradScaler and an optimizer that handles loss scaling itself on the device:
// it divides the gradients by grad_scale and skips its update when found_inf is non-zero, inside
// its own kernels. GradScaler::step() then needs no host synchronisation at all (the analogue of
// Python's `_step_supports_amp_scaling` optimizers, e.g. torch.optim.Adam(fused=True)).
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

namespace ampbench::amp {

class ScaleAwareOptimizer {
 public:
  // grad_scale: float32 0-dim tensor, the scale the gradients still carry; nullopt when unscale_()
  // has already divided it out. found_inf: float32 0-dim tensor, non-zero when some gradient held
  // inf or NaN and the update must not change parameters or state.
  virtual void step_with_scale(const std::optional<at::Tensor>& grad_scale, const at::Tensor& found_inf) = 0;

 protected:
  ScaleAwareOptimizer() = default;
  ScaleAwareOptimizer(const ScaleAwareOptimizer&) = default;
  ScaleAwareOptimizer& operator=(const ScaleAwareOptimizer&) = default;
  ~ScaleAwareOptimizer() = default;  // not owned through this interface
};

}  // namespace ampbench::amp
