// A small real training loop on the CPU for the replay tests: the transformer workload with AdamW
// and a CPU GradScaler that doubles its scale after every clean step, so that weights, optimizer
// state and scaler state all move on with each step.
#pragma once

#include <ampbench/amp/grad_scaler.h>
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "ampbench/workloads/registry.h"

namespace ampbench::harness::testing_support {

struct TinyTraining {
  std::unique_ptr<workloads::Workload> workload =
      workloads::make_workload("transformer", {workloads::Preset::kDefault, 2, 0, torch::kCPU});
  std::unique_ptr<torch::optim::Optimizer> optimizer = workload->make_optimizer();
  amp::GradScaler scaler{c10::DeviceType::CPU, {.init_scale = 1024.0, .growth_interval = 1}};

  // One step on batch `index`; returns the loss.
  double step(std::int64_t index) {
    optimizer->zero_grad();
    const auto loss = workload->loss(workload->make_batch(index));
    scaler.scale(loss).backward();
    static_cast<void>(scaler.step(*optimizer));
    scaler.update();
    return loss.item<double>();
  }

  [[nodiscard]] std::vector<torch::Tensor> parameters() const {
    std::vector<torch::Tensor> copies;
    for (const auto& parameter : workload->module().parameters()) copies.push_back(parameter.detach().clone());
    return copies;
  }
};

inline bool all_equal(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!torch::equal(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace ampbench::harness::testing_support
