// A small residual CNN with BatchNorm (a stem, two residual blocks, global average pooling, a
// linear classifier) classifying noisy 32x32 images into 10 classes, benchmarked with ampbench.
// Build it against an installed ampbench and run `residual_cnn run --workloads residual_cnn`.
// It states no FLOPs: ampbench counts them from one forward and says so in the report.
#include <ATen/CPUGeneratorImpl.h>
#include <ampbench/workloads/module_workload.h>
#include <ampbench/workloads/registry.h>
#include <torch/torch.h>

namespace {

constexpr std::int64_t kChannels = 16;
constexpr std::int64_t kImage = 32;
constexpr std::int64_t kClasses = 10;

torch::nn::Conv2d conv3x3(std::int64_t in, std::int64_t out) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).padding(1).bias(false));
}

struct ResidualBlockImpl : torch::nn::Module {
  ResidualBlockImpl()
      : conv1(register_module("conv1", conv3x3(kChannels, kChannels))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(kChannels))),
        conv2(register_module("conv2", conv3x3(kChannels, kChannels))),
        bn2(register_module("bn2", torch::nn::BatchNorm2d(kChannels))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = torch::relu(bn1(conv1(x)));
    return torch::relu(x + bn2(conv2(y)));
  }
  torch::nn::Conv2d conv1;
  torch::nn::BatchNorm2d bn1;
  torch::nn::Conv2d conv2;
  torch::nn::BatchNorm2d bn2;
};
TORCH_MODULE(ResidualBlock);

struct ResidualCnnImpl : torch::nn::Module {
  ResidualCnnImpl()
      : stem(register_module("stem", conv3x3(3, kChannels))),
        bn(register_module("bn", torch::nn::BatchNorm2d(kChannels))),
        block1(register_module("block1", ResidualBlock())),
        block2(register_module("block2", ResidualBlock())),
        fc(register_module("fc", torch::nn::Linear(kChannels, kClasses))) {}
  torch::Tensor forward(const torch::Tensor& images) {
    auto x = torch::relu(bn(stem(images)));
    x = block2(block1(x));
    return fc(x.mean({2, 3}));  // global average pooling
  }
  torch::nn::Conv2d stem;
  torch::nn::BatchNorm2d bn;
  ResidualBlock block1;
  ResidualBlock block2;
  torch::nn::Linear fc;
};
TORCH_MODULE(ResidualCnn);

std::unique_ptr<ampbench::workloads::Workload> make_residual_cnn(const ampbench::workloads::WorkloadOptions& options) {
  const std::int64_t batch = options.batch.value_or(32);
  const auto seed = static_cast<std::int64_t>(options.seed);
  torch::manual_seed(seed);  // the same initial weights in every mode
  ResidualCnn model;
  // Each class is a fixed random template; a sample is its template plus noise, and batch i is
  // drawn from its own generator, so every call gives the same batch.
  const auto templates = torch::randn({kClasses, 3, kImage, kImage});
  ampbench::workloads::ModuleWorkloadSpec spec;
  spec.name = "residual_cnn";
  spec.description = "stem conv 3->16 + 2 residual blocks (conv-BN-ReLU x2) at 16x32x32, avg pool, fc 16->10, batch " +
                     std::to_string(batch);
  spec.module = model.ptr();
  spec.forward = ampbench::workloads::forward_of(model);
  spec.batch = [templates, batch, seed](std::int64_t index) {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(seed * 1000003 + index));
    auto labels = at::randint(kClasses, {batch}, generator, torch::kLong);
    auto images = templates.index_select(0, labels) + at::randn({batch, 3, kImage, kImage}, generator, torch::kFloat32);
    return ampbench::workloads::Batch{images, labels};
  };
  spec.loss = [](const torch::Tensor& logits, const torch::Tensor& labels) {
    return torch::nn::functional::cross_entropy(logits, labels);
  };
  spec.optimizer = [](std::vector<torch::Tensor> parameters) {
    return std::make_unique<torch::optim::SGD>(std::move(parameters), torch::optim::SGDOptions(0.05).momentum(0.9));
  };
  return ampbench::workloads::make_module_workload(std::move(spec), options);
}

}  // namespace

AMPBENCH_WORKLOAD("residual_cnn", "residual CNN with BatchNorm on noisy 3x32x32 class templates (CrossEntropy, SGD)",
                  make_residual_cnn);
