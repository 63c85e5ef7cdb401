// SGD, Adam and AdamW built on ATen's fused multi-tensor kernels (at::_fused_sgd_,
// at::_fused_adam_, at::_fused_adamw_; CPU and CUDA), the kernels behind Python's
// torch.optim.{SGD,Adam,AdamW}(fused=True). One launch updates every parameter of a device and
// dtype. They take GradScaler's scale and inf flag as device tensors (ScaleAwareOptimizer), so
// scaler.step() on them costs no host synchronisation.
//
// Semantics follow Python's fused path: Adam's step counter is a float32 0-dim tensor on the
// parameter's device, incremented before the kernel and decremented by found_inf after it. One
// deliberate difference: Python allocates SGD momentum buffers with empty_like on the first step,
// which leaves them uninitialised when that step is skipped for inf; here they start as zeros.
// Options are torch::optim's own (SGDOptions, AdamOptions, AdamWOptions); `maximize` does not
// exist there and is always false.
#pragma once

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/optimizer.h>
#include <torch/optim/sgd.h>

#include <optional>
#include <vector>

#include "ampbench/amp/scale_aware_optimizer.h"

namespace ampbench::amp {

struct FusedSGDParamState : torch::optim::OptimizerCloneableParamState<FusedSGDParamState> {
  TORCH_ARG(torch::Tensor, momentum_buffer);  // undefined while momentum == 0

 public:
  void serialize(torch::serialize::InputArchive& archive) override;
  void serialize(torch::serialize::OutputArchive& archive) const override;
};

struct FusedAdamParamState : torch::optim::OptimizerCloneableParamState<FusedAdamParamState> {
  TORCH_ARG(torch::Tensor, step);  // float32, 0-dim, on the parameter's device
  TORCH_ARG(torch::Tensor, exp_avg);
  TORCH_ARG(torch::Tensor, exp_avg_sq);
  TORCH_ARG(torch::Tensor, max_exp_avg_sq);  // amsgrad only

 public:
  void serialize(torch::serialize::InputArchive& archive) override;
  void serialize(torch::serialize::OutputArchive& archive) const override;
};

// What the fused optimizers share: a plain step() (gradients already unscaled) and the
// ScaleAwareOptimizer entry point both run the one fused update.
class FusedOptimizer : public torch::optim::Optimizer, public ScaleAwareOptimizer {
 public:
  using Optimizer::Optimizer;
  torch::Tensor step(LossClosure closure = nullptr) final;
  void step_with_scale(const std::optional<at::Tensor>& grad_scale, const at::Tensor& found_inf) final;

 protected:
  virtual void fused_step(const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) = 0;
};

class FusedSGD final : public FusedOptimizer {
 public:
  explicit FusedSGD(const std::vector<torch::optim::OptimizerParamGroup>& param_groups,
                    torch::optim::SGDOptions defaults);
  FusedSGD(std::vector<torch::Tensor> params, torch::optim::SGDOptions defaults);

  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

 private:
  void fused_step(const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) override;
};

// Adam and AdamW share everything but the kernel (L2 penalty in the gradient vs decoupled decay).
template <typename Options>
class FusedAdamFamily final : public FusedOptimizer {
 public:
  explicit FusedAdamFamily(const std::vector<torch::optim::OptimizerParamGroup>& param_groups, Options defaults);
  FusedAdamFamily(std::vector<torch::Tensor> params, Options defaults);

  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

 private:
  void fused_step(const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) override;
};

using FusedAdam = FusedAdamFamily<torch::optim::AdamOptions>;
using FusedAdamW = FusedAdamFamily<torch::optim::AdamWOptions>;
extern template class FusedAdamFamily<torch::optim::AdamOptions>;
extern template class FusedAdamFamily<torch::optim::AdamWOptions>;

}  // namespace ampbench::amp
