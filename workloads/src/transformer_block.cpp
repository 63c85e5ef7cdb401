// TransformerBlock: a pre-norm block (LayerNorm -> multi-head self-attention through
// scaled_dot_product_attention -> residual; LayerNorm -> GELU MLP -> residual) regressing a random
// teacher block's output with MSE and AdamW.
#include <ATen/ops/scaled_dot_product_attention.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/optim/adamw.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "factories.h"
#include "synthetic_data.h"

namespace ampbench::workloads::detail {
namespace {

struct TransformerSize {
  std::int64_t d_model;
  std::int64_t heads;
  std::int64_t ffn;
  std::int64_t sequence;
  std::int64_t batch;
};

TransformerSize transformer_preset(Preset preset) {
  switch (preset) {
    case Preset::kSeed:
      return {256, 4, 1024, 128, 8};
    case Preset::kDefault:
      return {128, 4, 512, 64, 4};  // sized for the 2-minute CPU suite (docs/running.md)
    case Preset::kLarge:
      return {1024, 16, 4096, 512, 16};
    case Preset::kGpu:
      return {4096, 32, 16384, 2048, 8};  // an LLM layer's width: about 21 TFLOP a step
  }
  throw std::invalid_argument("preset " + std::to_string(static_cast<int>(preset)) + " has no sizes");
}

class TransformerBlockNetImpl : public torch::nn::Module {
 public:
  explicit TransformerBlockNetImpl(const TransformerSize& size)
      : heads_(size.heads),
        norm1(register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({size.d_model})))),
        qkv(register_module("qkv", torch::nn::Linear(size.d_model, 3 * size.d_model))),
        out(register_module("out", torch::nn::Linear(size.d_model, size.d_model))),
        norm2(register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({size.d_model})))),
        fc1(register_module("fc1", torch::nn::Linear(size.d_model, size.ffn))),
        fc2(register_module("fc2", torch::nn::Linear(size.ffn, size.d_model))) {}

  torch::Tensor forward(torch::Tensor x) {
    const auto batch = x.size(0);
    const auto sequence = x.size(1);
    const auto d_model = x.size(2);
    // [B, S, 3, H, Dh] -> three [B, H, S, Dh] tensors.
    auto projected = qkv->forward(norm1->forward(x)).view({batch, sequence, 3, heads_, d_model / heads_});
    projected = projected.permute({2, 0, 3, 1, 4});
    auto attended = at::scaled_dot_product_attention(projected[0], projected[1], projected[2]);
    x = x + out->forward(attended.transpose(1, 2).reshape({batch, sequence, d_model}));
    return x + fc2->forward(torch::nn::functional::gelu(fc1->forward(norm2->forward(x))));
  }

 private:
  std::int64_t heads_;

 public:
  torch::nn::LayerNorm norm1;
  torch::nn::Linear qkv;
  torch::nn::Linear out;
  torch::nn::LayerNorm norm2;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};
TORCH_MODULE(TransformerBlockNet);

class TransformerBlock final : public Workload {
 public:
  explicit TransformerBlock(const WorkloadOptions& options)
      : options_(options), size_(transformer_preset(options.preset)) {
    size_.batch = batch_size(options, size_.batch);
    if (size_.d_model % size_.heads != 0) {
      throw std::invalid_argument("transformer: d_model " + std::to_string(size_.d_model) +
                                  " is not divisible by heads " + std::to_string(size_.heads));
    }
    build_student_and_teacher(
        options.seed, options.device, [&] { return TransformerBlockNet(size_); }, student_, teacher_);
  }

  std::string name() const override { return "transformer"; }

  std::string describe() const override {
    std::ostringstream text;
    text << "pre-norm block d " << size_.d_model << ", " << size_.heads << " heads, ffn " << size_.ffn << ", seq "
         << size_.sequence << ", batch " << size_.batch << ", MSE, AdamW lr 1e-3";
    return text.str();
  }

  torch::nn::Module& module() override { return *student_; }

  torch::Tensor loss(const Batch& batch) override {
    return torch::nn::functional::mse_loss(student_->forward(batch.input), batch.target);
  }

  std::unique_ptr<torch::optim::Optimizer> make_optimizer() override {
    return recipe_optimizer<amp::FusedAdamW, torch::optim::AdamW>(options_, student_->parameters(),
                                                                  torch::optim::AdamWOptions(1e-3));
  }

  Batch make_batch(std::int64_t index) override {
    auto input = data_normal(options_.seed, index, {size_.batch, size_.sequence, size_.d_model}, options_.device);
    torch::NoGradGuard no_grad;
    auto target = teacher_->forward(input);
    return {std::move(input), std::move(target)};
  }

  std::optional<double> flops_per_step() const override {
    const double tokens = static_cast<double>(tokens_per_step());
    const double d = static_cast<double>(size_.d_model);
    const double projections = 2.0 * tokens * d * (3 * d) + 2.0 * tokens * d * d;
    const double attention = 2.0 * 2.0 * size_.batch * static_cast<double>(size_.sequence) * size_.sequence * d;
    const double mlp = 2.0 * 2.0 * tokens * d * size_.ffn;
    return 3.0 * (projections + attention + mlp);
  }

  std::int64_t samples_per_step() const override { return size_.batch; }
  std::int64_t tokens_per_step() const override { return size_.batch * size_.sequence; }

 private:
  WorkloadOptions options_;
  TransformerSize size_;
  TransformerBlockNet student_{nullptr};
  TransformerBlockNet teacher_{nullptr};
};

}  // namespace

std::unique_ptr<Workload> make_transformer_block(const WorkloadOptions& options) {
  return std::make_unique<TransformerBlock>(options);
}

MemoryEstimate estimate_transformer_block(const WorkloadOptions& options) {
  const auto size = transformer_preset(options.preset);
  const double batch = static_cast<double>(batch_size(options, size.batch));
  const double d = static_cast<double>(size.d_model);
  const double ffn = static_cast<double>(size.ffn);
  const double tokens = batch * static_cast<double>(size.sequence);
  const double parameters = 4.0 * d * d + 2.0 * d * ffn + 9.0 * d + ffn;
  // Per token backward keeps both norms' inputs and outputs, q, k and v, the attention output,
  // fc1's output and the GELU's, and the loss input: 9 d + 2 ffn. SDPA's math path (float32 on some
  // GPUs) also keeps the attention probabilities, batch x heads x seq^2: counted, as the bound.
  const double scores = batch * static_cast<double>(size.heads) * static_cast<double>(size.sequence * size.sequence);
  MemoryEstimate estimate;
  estimate.batch = static_cast<std::int64_t>(batch);
  estimate.trained_parameters = parameters;
  estimate.optimizer_state = 2.0;              // AdamW: exp_avg, exp_avg_sq
  estimate.resident_bytes = 4.0 * parameters;  // the teacher
  estimate.batch_bytes = 2.0 * 4.0 * tokens * d;
  estimate.saved_activations = tokens * (9.0 * d + 2.0 * ffn) + scores;
  estimate.largest_temporary = std::max(scores, tokens * ffn);
  return estimate;
}

}  // namespace ampbench::workloads::detail
