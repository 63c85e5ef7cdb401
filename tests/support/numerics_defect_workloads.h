// Two workloads with a numerics defect seeded where the per-layer diagnostics must find it, for the
// numerics pass's tests and for tests through the real binary (tests/cli/numerics_defects.cpp):
// - tiny-loss: an MLP regression whose loss is in tiny units (x 2^-24), trained by SGD with the
//   learning rate scaled up to match. FP32 trains exactly as at unit scale, but under float16
//   autocast the gradient reaching the float16 layers (about 2^-29 x the error) is below float16's
//   smallest subnormal and becomes zero, so without loss scaling nothing learns. The GradScaler's
//   2^16 lifts it back into range; bfloat16 has float32's range. Its layers: "hidden", "out".
// - loud-layer: an MLP whose middle Linear, "loud", has weights 2^18 times their initial values
//   and whose output is divided by 2^18 again before "head": FP32 (and bfloat16, with float32's
//   range) train as the plain MLP, but "loud"'s output (about 1e5) overflows float16 to inf.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <memory>

#include "ampbench/workloads/workload.h"

namespace ampbench::testing {

class TinyLossRegression final : public workloads::Workload {
 public:
  explicit TinyLossRegression(const workloads::WorkloadOptions& /*options: one size, on the CPU*/) {
    torch::manual_seed(7);
    teacher_ = make_mlp();
    torch::manual_seed(11);
    student_ = make_mlp();
    for (auto& parameter : teacher_->parameters()) parameter.set_requires_grad(false);
  }
  std::string name() const override { return "tiny-loss"; }
  std::string describe() const override { return "MLP 16->64->1, MSE x 2^-24, SGD"; }
  torch::nn::Module& module() override { return *student_; }
  torch::Tensor loss(const workloads::Batch& batch) override {
    return torch::mse_loss(student_->forward(batch.input), batch.target) * kLossUnit;
  }
  std::unique_ptr<torch::optim::Optimizer> make_optimizer() override {
    return std::make_unique<torch::optim::SGD>(student_->parameters(), torch::optim::SGDOptions(0.05 / kLossUnit));
  }
  workloads::Batch make_batch(std::int64_t index) override {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(1000 + static_cast<std::uint64_t>(index));
    auto input = at::randn({64, 16}, generator);
    torch::NoGradGuard no_grad;
    auto target = teacher_->forward(input);
    return {input, target};
  }
  std::optional<double> flops_per_step() const override { return 3.0 * 2.0 * 64 * (16 * 64 + 64); }
  std::int64_t samples_per_step() const override { return 64; }

 private:
  static constexpr double kLossUnit = 1.0 / (1 << 24);
  static torch::nn::Sequential make_mlp() {
    return torch::nn::Sequential(
        {{"hidden", torch::nn::Linear(16, 64)}, {"relu", torch::nn::ReLU()}, {"out", torch::nn::Linear(64, 1)}});
  }
  torch::nn::Sequential student_{nullptr};
  torch::nn::Sequential teacher_{nullptr};
};

struct LoudMlpImpl : torch::nn::Module {
  static constexpr double kGain = 1 << 18;
  LoudMlpImpl()
      : hidden(register_module("hidden", torch::nn::Linear(16, 64))),
        loud(register_module("loud", torch::nn::Linear(64, 64))),
        head(register_module("head", torch::nn::Linear(64, 1))) {
    torch::NoGradGuard no_grad;
    loud->weight.mul_(kGain);
    loud->bias.mul_(kGain);
  }
  torch::Tensor forward(const torch::Tensor& input) { return head(loud(torch::relu(hidden(input))) / kGain); }
  torch::nn::Linear hidden, loud, head;
};
TORCH_MODULE(LoudMlp);

class LoudLayerRegression final : public workloads::Workload {
 public:
  explicit LoudLayerRegression(const workloads::WorkloadOptions& /*options: one size, on the CPU*/) {
    torch::manual_seed(5);
    model_ = LoudMlp();
  }
  std::string name() const override { return "loud-layer"; }
  std::string describe() const override { return "MLP 16->64->64->1 whose middle layer reaches ~1e5, MSE, Adam"; }
  torch::nn::Module& module() override { return *model_; }
  torch::Tensor loss(const workloads::Batch& batch) override {
    return torch::mse_loss(model_->forward(batch.input), batch.target);
  }
  std::unique_ptr<torch::optim::Optimizer> make_optimizer() override {
    return std::make_unique<torch::optim::Adam>(model_->parameters(), torch::optim::AdamOptions(1e-3));
  }
  workloads::Batch make_batch(std::int64_t index) override {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(2000 + static_cast<std::uint64_t>(index));
    auto input = at::randn({64, 16}, generator);
    return {input, input.narrow(1, 0, 4).sum(1, /*keepdim=*/true)};  // a learnable target
  }
  std::optional<double> flops_per_step() const override { return 3.0 * 2.0 * 64 * (16 * 64 + 64 * 64 + 64); }
  std::int64_t samples_per_step() const override { return 64; }

 private:
  LoudMlp model_{nullptr};
};

}  // namespace ampbench::testing
