// A copy of everything a training step changes: the model's parameters and buffers, the
// optimizer's state and the GradScaler's. Restoring it makes the next step do bit for bit what it
// would have done when the copy was taken, which is what CUPTI's user replay needs of the profiled
// steps (the same work in every pass).
#pragma once

#include <ampbench/amp/grad_scaler.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <optional>
#include <string>
#include <vector>

namespace ampbench::harness {

class TrainingStateSnapshot {
 public:
  // Copies the state now; `scaler` may be null (a mode without loss scaling). The three objects
  // must outlive the snapshot. The optimizer must support save()/load() (LibTorch's do).
  TrainingStateSnapshot(torch::nn::Module& module, torch::optim::Optimizer& optimizer, amp::GradScaler* scaler);

  // Puts the copied state back into the same objects; can be called any number of times. Throws
  // std::logic_error if the module's parameters or buffers changed in number or shape since.
  void restore();

 private:
  torch::nn::Module& module_;
  torch::optim::Optimizer& optimizer_;
  amp::GradScaler* scaler_;
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> buffers_;
  std::string optimizer_state_;  // torch::serialize archive bytes: the state's tensors are deep copies
  std::optional<c10::Dict<std::string, c10::IValue>> scaler_state_;
};

}  // namespace ampbench::harness
