// SimpleNet: an MLP regressing a random teacher MLP's output with MSE and SGD. Its `seed` preset is
// the classic AMP tutorial's model: Linear 10 -> 1 on 100 samples, SGD lr 0.01.
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "factories.h"
#include "synthetic_data.h"

namespace ampbench::workloads::detail {
namespace {

struct SimpleNetSize {
  std::int64_t inputs;
  std::vector<std::int64_t> hidden;
  std::int64_t outputs;
  std::int64_t batch;
};

SimpleNetSize simple_net_preset(Preset preset) {
  switch (preset) {
    case Preset::kSeed:
      return {10, {}, 1, 100};
    case Preset::kDefault:
      return {32, {128, 128}, 1, 128};  // sized for the 2-minute CPU suite (docs/running.md)
    case Preset::kLarge:
      return {1024, {4096, 4096}, 1, 4096};
    case Preset::kGpu:
      return {8192, {8192, 8192, 8192}, 1, 8192};  // three 8192^2 GEMMs at batch 8192: about 10 TFLOP a step
  }
  throw std::invalid_argument("preset " + std::to_string(static_cast<int>(preset)) + " has no sizes");
}

torch::nn::Sequential make_mlp(const SimpleNetSize& size) {
  torch::nn::Sequential mlp;
  std::int64_t width = size.inputs;
  for (const auto hidden : size.hidden) {
    mlp->push_back(torch::nn::Linear(width, hidden));
    mlp->push_back(torch::nn::ReLU());
    width = hidden;
  }
  mlp->push_back(torch::nn::Linear(width, size.outputs));
  return mlp;
}

class SimpleNet final : public Workload {
 public:
  explicit SimpleNet(const WorkloadOptions& options) : options_(options), size_(simple_net_preset(options.preset)) {
    size_.batch = batch_size(options, size_.batch);
    build_student_and_teacher(
        options.seed, options.device, [&] { return make_mlp(size_); }, student_, teacher_);
  }

  std::string name() const override { return "simplenet"; }

  std::string describe() const override {
    std::ostringstream text;
    text << "MLP " << size_.inputs;
    for (const auto hidden : size_.hidden) text << "->" << hidden;
    text << "->" << size_.outputs << ", MSE, SGD lr 0.01, batch " << size_.batch;
    return text.str();
  }

  torch::nn::Module& module() override { return *student_; }

  torch::Tensor loss(const Batch& batch) override {
    return torch::nn::functional::mse_loss(student_->forward(batch.input), batch.target);
  }

  std::unique_ptr<torch::optim::Optimizer> make_optimizer() override {
    return recipe_optimizer<amp::FusedSGD, torch::optim::SGD>(options_, student_->parameters(),
                                                              torch::optim::SGDOptions(0.01));
  }

  Batch make_batch(std::int64_t index) override {
    auto input = data_normal(options_.seed, index, {size_.batch, size_.inputs}, options_.device);
    torch::NoGradGuard no_grad;
    auto target = teacher_->forward(input);
    return {std::move(input), std::move(target)};
  }

  std::optional<double> flops_per_step() const override {
    double forward = 0.0;
    std::int64_t width = size_.inputs;
    for (const auto hidden : size_.hidden) {
      forward += 2.0 * size_.batch * width * hidden;
      width = hidden;
    }
    forward += 2.0 * size_.batch * width * size_.outputs;
    return 3.0 * forward;
  }

  std::int64_t samples_per_step() const override { return size_.batch; }

 private:
  WorkloadOptions options_;
  SimpleNetSize size_;
  torch::nn::Sequential student_{nullptr};
  torch::nn::Sequential teacher_{nullptr};
};

}  // namespace

std::unique_ptr<Workload> make_simple_net(const WorkloadOptions& options) {
  return std::make_unique<SimpleNet>(options);
}

MemoryEstimate estimate_simple_net(const WorkloadOptions& options) {
  const auto size = simple_net_preset(options.preset);
  const double batch = static_cast<double>(batch_size(options, size.batch));
  double parameters = 0.0;
  double activations = 0.0;  // each Linear's input, and each ReLU's output (the next one's input)
  double widest = static_cast<double>(size.inputs);
  std::int64_t width = size.inputs;
  for (const auto hidden : size.hidden) {
    parameters += static_cast<double>(width * hidden + hidden);
    activations += batch * static_cast<double>(width + hidden);
    widest = std::max(widest, static_cast<double>(hidden));
    width = hidden;
  }
  parameters += static_cast<double>(width * size.outputs + size.outputs);
  activations += batch * static_cast<double>(width + size.outputs);
  MemoryEstimate estimate;
  estimate.batch = static_cast<std::int64_t>(batch);
  estimate.trained_parameters = parameters;
  estimate.optimizer_state = 0.0;              // SGD without momentum
  estimate.resident_bytes = 4.0 * parameters;  // the teacher
  estimate.batch_bytes = 4.0 * batch * static_cast<double>(size.inputs + size.outputs);
  estimate.saved_activations = activations;
  estimate.largest_temporary = batch * widest;
  return estimate;
}

}  // namespace ampbench::workloads::detail
