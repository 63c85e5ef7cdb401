// A workload's training step as PyTorch's AMP recipe writes it, in C++ with LibTorch's own parts
// and nothing of ampbench's amp library: zero_grad, the loss under LibTorch's native autocast
// (for float16 and bfloat16), backward, and for float16 the loss scaling torch.amp.GradScaler does
// with ATen's own ops (scale the loss, _amp_foreach_non_finite_check_and_unscale_, step unless a
// gradient is inf/NaN, _amp_update_scale_). The reference ampbench's timed steps are held to:
// bare_loop_cell (validity.py's independent loop) and harness_overhead_benchmark (what the harness
// adds to a step) both step through it.
//
// The native autocast kernels run only where ampbench's are not registered on the same dispatch
// key (ampbench::amp::release_autocast_kernels()): otherwise ampbench's shadow them.
#pragma once

#include <ATen/Functions.h>
#include <torch/optim/optimizer.h>

#include "ampbench/workloads/workload.h"
#include "native_autocast.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ampbench::bench {

// The modes this step writes as PyTorch's recipe does, each with the dtype it autocasts to (none:
// float32). ampbench's other modes (fp16-noscale, tf32) have no such plain loop to be held to.
inline const std::map<std::string, std::optional<at::ScalarType>>& native_step_modes() {
  static const std::map<std::string, std::optional<at::ScalarType>> modes = {
      {"fp32", std::nullopt}, {"fp16", at::kHalf}, {"bf16", at::kBFloat16}};
  return modes;
}

// GradScaler's state and its step, with ATen's AMP ops and torch.amp.GradScaler's defaults.
class NativeLossScaling {
 public:
  NativeLossScaling() : scale_(at::full({1}, kInitialScale, at::kFloat)), growth_tracker_(at::zeros({1}, at::kInt)) {}

  void backward(const at::Tensor& loss) { (loss * scale_).backward(); }

  void step(torch::optim::Optimizer& optimizer) {
    std::vector<at::Tensor> grads;
    for (const auto& group : optimizer.param_groups()) {
      for (const auto& parameter : group.params()) {
        if (parameter.grad().defined()) grads.push_back(parameter.grad());
      }
    }
    auto found_inf = at::zeros({1}, at::kFloat);
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, scale_.reciprocal());
    if (found_inf.item<float>() == 0.0F) optimizer.step();  // the step's one host sync, as in Python
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf, kGrowthFactor, kBackoffFactor, kGrowthInterval);
  }

 private:
  static constexpr double kInitialScale = 65536.0;
  static constexpr double kGrowthFactor = 2.0;
  static constexpr double kBackoffFactor = 0.5;
  static constexpr std::int64_t kGrowthInterval = 2000;

  at::Tensor scale_;
  at::Tensor growth_tracker_;
};

// One mode's step on a CPU workload: float32 when `dtype` is empty, else autocast to it, with loss
// scaling for float16. Returns the loss (still attached to its graph).
class NativeTrainingStep {
 public:
  NativeTrainingStep(workloads::Workload& workload, torch::optim::Optimizer& optimizer,
                     std::optional<at::ScalarType> dtype)
      : workload_(workload), optimizer_(optimizer), dtype_(dtype) {
    if (dtype_ == at::kHalf) scaling_.emplace();
  }

  at::Tensor run(const workloads::Batch& batch) {
    optimizer_.zero_grad();
    at::Tensor loss;
    {
      std::optional<NativeAutocast> autocast;
      if (dtype_) autocast.emplace(c10::DeviceType::CPU, *dtype_);
      loss = workload_.loss(batch);
    }
    if (scaling_) {
      scaling_->backward(loss);
      scaling_->step(optimizer_);
    } else {
      loss.backward();
      optimizer_.step();
    }
    return loss;
  }

 private:
  workloads::Workload& workload_;
  torch::optim::Optimizer& optimizer_;
  std::optional<at::ScalarType> dtype_;
  std::optional<NativeLossScaling> scaling_;
};

}  // namespace ampbench::bench
