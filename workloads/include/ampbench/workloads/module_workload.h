// A workload from the parts a LibTorch training loop already has: a torch::nn module (any module
// holder), a function giving batch i, a loss and an optimizer factory. The common case of
// benchmarking a model of one's own: examples/ has two, each one short file.
//
// What ampbench needs from them: determinism (the same options give the same initial weights,
// and batch(i) the same batch every call, for every mode: seed LibTorch from options.seed before
// building the model and derive each batch from its index); batches built outside the timed steps
// (ampbench calls batch(i) before it times step i, so it may be slow, but must not depend on
// training); and the FLOPs per step, stated if you know them, else counted by ampbench from one
// forward (matrix products, convolutions and attention: what amp's op counters see).
#pragma once

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/workloads/workload.h"

namespace ampbench::workloads {

struct ModuleWorkloadSpec {
  std::string name;  // the registered name
  std::string description;
  std::shared_ptr<torch::nn::Module> module;  // e.g. holder.ptr(); moved to the run's device
  // The model's forward from a batch's input; forward_of(holder) makes one for a module holder.
  std::function<torch::Tensor(const torch::Tensor& input)> forward;
  // Batch `index`, on any device (ampbench moves it to the run's device, outside the timed step).
  std::function<Batch(std::int64_t index)> batch;
  // The scalar loss of the forward's output against the batch's target.
  std::function<torch::Tensor(const torch::Tensor& output, const torch::Tensor& target)> loss;
  std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor> parameters)> optimizer;
  std::int64_t samples_per_step = 0;  // 0: the first dimension of batch(0)'s input
  std::int64_t tokens_per_step = 0;
  std::optional<double> flops_per_step;  // forward + backward; absent: counted by ampbench
};

// The forward of a module holder (torch::nn::Linear, a TORCH_MODULE of your own, ...).
template <typename Holder>
[[nodiscard]] std::function<torch::Tensor(const torch::Tensor&)> forward_of(Holder holder) {
  return [holder](const torch::Tensor& input) mutable { return holder->forward(input); };
}

// Throws std::invalid_argument naming the spec's missing part (module, forward, batch, loss or
// optimizer).
[[nodiscard]] std::unique_ptr<Workload> make_module_workload(ModuleWorkloadSpec spec, const WorkloadOptions& options);

}  // namespace ampbench::workloads
