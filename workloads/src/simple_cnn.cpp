// SimpleCNN: the conv net of the classic AMP tutorial (conv 3->32, pool, conv 32->64, pool, fc ->
// 10) classifying noisy 32x32 images of 10 classes; CrossEntropy and Adam. Each class is a fixed
// random template image; a sample is its class's template at amplitude 0.85 plus unit Gaussian
// noise, and 10% of the labels are replaced by a random class. A random teacher CNN's argmax
// labels (the other workloads' recipe) were almost all three classes, set by its biases: the
// student learnt that prior within a few steps and nothing after, so divergence had nothing to
// measure. This task is learnt gradually (FP32's held-out loss still falls at the end of the
// numerics pass) and label noise keeps it from reaching zero.
// The tutorial's fc input "64*16*16" cannot run: two 2x2 pools take 32x32 to 8x8, so the fc input
// is derived from the shapes (64*8*8 = 4096 at 32x32).
#include <torch/nn/functional/loss.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>

#include <sstream>
#include <stdexcept>

#include "factories.h"
#include "synthetic_data.h"

namespace ampbench::workloads::detail {
namespace {

struct SimpleCnnSize {
  std::int64_t channels1;
  std::int64_t channels2;
  std::int64_t image;  // square images, 3 channels
  std::int64_t classes;
  std::int64_t batch;
  [[nodiscard]] std::int64_t fc_inputs() const { return channels2 * (image / 4) * (image / 4); }
};

SimpleCnnSize simple_cnn_preset(Preset preset) {
  switch (preset) {
    case Preset::kSeed:
      return {32, 64, 32, 10, 64};
    case Preset::kDefault:
      return {32, 64, 32, 10, 32};  // the tutorial's net at half its batch, for the CPU suite
    case Preset::kLarge:
      return {64, 128, 64, 10, 256};
    case Preset::kGpu:
      return {128, 256, 128, 10, 256};  // 3x128x128 images: about 2 TFLOP a step, most of it conv2
  }
  throw std::invalid_argument("preset " + std::to_string(static_cast<int>(preset)) + " has no sizes");
}

class SimpleCnnNetImpl : public torch::nn::Module {
 public:
  explicit SimpleCnnNetImpl(const SimpleCnnSize& size)
      : conv1(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, size.channels1, 3).padding(1)))),
        conv2(register_module(
            "conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(size.channels1, size.channels2, 3).padding(1)))),
        fc(register_module("fc", torch::nn::Linear(size.fc_inputs(), size.classes))) {}

  torch::Tensor forward(torch::Tensor x) {
    namespace F = torch::nn::functional;
    x = F::max_pool2d(torch::relu(conv1->forward(x)), F::MaxPool2dFuncOptions(2));
    x = F::max_pool2d(torch::relu(conv2->forward(x)), F::MaxPool2dFuncOptions(2));
    return fc->forward(x.flatten(1));
  }

  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Linear fc;
};
TORCH_MODULE(SimpleCnnNet);

constexpr double kTemplateAmplitude = 0.85;
constexpr double kLabelNoise = 0.1;

class SimpleCnn final : public Workload {
 public:
  explicit SimpleCnn(const WorkloadOptions& options) : options_(options), size_(simple_cnn_preset(options.preset)) {
    size_.batch = batch_size(options, size_.batch);
    student_ = build_seeded(options.seed, Stream::kStudent, [&] { return SimpleCnnNet(size_); });
    student_->to(options.device);
    templates_ = at::randn({size_.classes, 3, size_.image, size_.image}, generator_for(options.seed, Stream::kTeacher),
                           torch::kFloat32)
                     .to(options.device);
  }

  std::string name() const override { return "simplecnn"; }

  std::string describe() const override {
    std::ostringstream text;
    text << "conv 3->" << size_.channels1 << "->" << size_.channels2 << " k3, 2 maxpools, fc " << size_.fc_inputs()
         << "->" << size_.classes << ", CrossEntropy, Adam lr 1e-3, batch " << size_.batch << ", 3x" << size_.image
         << "x" << size_.image;
    return text.str();
  }

  torch::nn::Module& module() override { return *student_; }

  torch::Tensor loss(const Batch& batch) override {
    return torch::nn::functional::cross_entropy(student_->forward(batch.input), batch.target);
  }

  std::unique_ptr<torch::optim::Optimizer> make_optimizer() override {
    return recipe_optimizer<amp::FusedAdam, torch::optim::Adam>(options_, student_->parameters(),
                                                                torch::optim::AdamOptions(1e-3));
  }

  Batch make_batch(std::int64_t index) override {
    // The labels are a few hundred draws, made on the CPU; the images are drawn on the device.
    auto labels = generator_for(options_.seed, Stream::kLabels, index);
    const auto classes = at::randint(size_.classes, {size_.batch}, labels, torch::kLong);
    const auto relabel = at::rand({size_.batch}, labels) < kLabelNoise;
    const auto target = at::where(relabel, at::randint(size_.classes, {size_.batch}, labels, torch::kLong), classes);
    auto input = data_normal(options_.seed, index, {size_.batch, 3, size_.image, size_.image}, options_.device);
    input.add_(templates_.index_select(0, classes.to(options_.device)), kTemplateAmplitude);
    return {std::move(input), target.to(options_.device)};
  }

  std::optional<double> flops_per_step() const override {
    const double b = static_cast<double>(size_.batch);
    const double hw = static_cast<double>(size_.image * size_.image);
    const double conv1 = 2.0 * b * size_.channels1 * hw * 3 * 9;
    const double conv2 = 2.0 * b * size_.channels2 * (hw / 4) * size_.channels1 * 9;
    const double fc = 2.0 * b * size_.fc_inputs() * size_.classes;
    return 3.0 * (conv1 + conv2 + fc);
  }

  std::int64_t samples_per_step() const override { return size_.batch; }

 private:
  WorkloadOptions options_;
  SimpleCnnSize size_;
  SimpleCnnNet student_{nullptr};
  torch::Tensor templates_;  // [classes, 3, image, image], on the CPU where batches are made
};

}  // namespace

std::unique_ptr<Workload> make_simple_cnn(const WorkloadOptions& options) {
  return std::make_unique<SimpleCnn>(options);
}

MemoryEstimate estimate_simple_cnn(const WorkloadOptions& options) {
  const auto size = simple_cnn_preset(options.preset);
  const double batch = static_cast<double>(batch_size(options, size.batch));
  const double hw = static_cast<double>(size.image * size.image);
  const double c1 = static_cast<double>(size.channels1);
  const double c2 = static_cast<double>(size.channels2);
  const double fc = static_cast<double>(size.fc_inputs());
  MemoryEstimate estimate;
  estimate.batch = static_cast<std::int64_t>(batch);
  estimate.trained_parameters =
      c1 * 27.0 + c1 + c2 * c1 * 9.0 + c2 + fc * static_cast<double>(size.classes) + static_cast<double>(size.classes);
  estimate.optimizer_state = 2.0;                                                // Adam
  estimate.resident_bytes = 4.0 * static_cast<double>(size.classes) * 3.0 * hw;  // the class templates
  estimate.batch_bytes = 4.0 * batch * 3.0 * hw + 8.0 * batch;                   // images, int64 labels
  // The input, each ReLU's output (its pool's input), each pool's int64 indices (two elements'
  // worth at float32) and output.
  estimate.saved_activations = batch * (3.0 * hw + c1 * hw * 1.5 + c1 * hw / 4.0 + c2 * hw / 4.0 * 1.5 + fc);
  estimate.largest_temporary = batch * c1 * hw;  // conv1's output before its ReLU
  return estimate;
}

}  // namespace ampbench::workloads::detail
