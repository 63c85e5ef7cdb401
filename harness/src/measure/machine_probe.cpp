#include "measure/machine_probe.h"

#include "ampbench/reports/report.h"

namespace ampbench::harness::detail {
namespace {

constexpr std::int64_t kBatch = 128;
constexpr std::int64_t kInputs = 32;
constexpr std::int64_t kHidden = 128;
constexpr std::int64_t kGpuMatmulSize = 2048;

}  // namespace

MachineProbe::MachineProbe(c10::Device device) {
  const auto options = torch::TensorOptions().dtype(torch::kFloat).device(device);
  if (!device.is_cpu()) {
    name_ = reports::kGpuMatmulProbe;
    a_ = torch::rand({kGpuMatmulSize, kGpuMatmulSize}, options);
    b_ = torch::rand({kGpuMatmulSize, kGpuMatmulSize}, options);
    return;
  }
  name_ = "float32 MLP training step " + std::to_string(kInputs) + "-" + std::to_string(kHidden) + "-" +
          std::to_string(kHidden) + "-1, batch " + std::to_string(kBatch);
  // Fixed weights: the probe must cost the same in every run, so it does not draw from the
  // global generator the workloads seed.
  auto generator = at::detail::createCPUGenerator(0);
  mlp_->push_back(torch::nn::Linear(kInputs, kHidden));
  mlp_->push_back(torch::nn::ReLU());
  mlp_->push_back(torch::nn::Linear(kHidden, kHidden));
  mlp_->push_back(torch::nn::ReLU());
  mlp_->push_back(torch::nn::Linear(kHidden, 1));
  torch::NoGradGuard no_grad;
  for (auto& parameter : mlp_->parameters()) parameter.uniform_(-0.1, 0.1, generator);
  input_ = torch::rand({kBatch, kInputs}, generator, options);
  target_ = torch::rand({kBatch, 1}, generator, options);
}

void MachineProbe::run() {
  if (a_.defined()) {
    (void)at::mm(a_, b_);
    return;
  }
  // Gradients are dropped, not applied: every run of the probe is the same work on the same weights.
  torch::nn::functional::mse_loss(mlp_->forward(input_), target_).backward();
  for (auto& parameter : mlp_->parameters()) parameter.mutable_grad().reset();
}

}  // namespace ampbench::harness::detail
