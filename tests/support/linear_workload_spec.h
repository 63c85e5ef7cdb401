// The smallest module workload spec for tests of user workloads: a Linear 4->1 regressing ones from
// constant batches (batch i is 8 rows of 0.01 * (i % 7)), MSE, SGD. Tests break one part of it.
#pragma once

#include <torch/torch.h>

#include <string>

#include "ampbench/workloads/module_workload.h"

namespace ampbench::testing {

inline workloads::ModuleWorkloadSpec linear_workload_spec(const std::string& name) {
  torch::manual_seed(0);
  torch::nn::Linear model(4, 1);
  workloads::ModuleWorkloadSpec spec;
  spec.name = name;
  spec.description = "Linear 4->1 on constant batches";
  spec.module = model.ptr();
  spec.forward = workloads::forward_of(model);
  spec.batch = [](std::int64_t index) {
    return workloads::Batch{torch::full({8, 4}, 0.01 * static_cast<double>(index % 7)), torch::ones({8, 1})};
  };
  spec.loss = [](const torch::Tensor& output, const torch::Tensor& target) { return torch::mse_loss(output, target); };
  spec.optimizer = [](std::vector<torch::Tensor> parameters) {
    return std::make_unique<torch::optim::SGD>(std::move(parameters), torch::optim::SGDOptions(0.01));
  };
  return spec;
}

}  // namespace ampbench::testing
