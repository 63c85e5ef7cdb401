// An embedding + GRU sequence classifier (token ids -> embedding 64 -> GRU 128 -> the last hidden
// state -> 5 classes), benchmarked with ampbench. Build it against an installed ampbench and run
// `gru_classifier run --workloads gru_classifier`. It states its FLOPs: ampbench's counter sees
// matrix products, convolutions and attention, and LibTorch may run a GRU layer as one fused op.
#include <ATen/CPUGeneratorImpl.h>
#include <ampbench/workloads/module_workload.h>
#include <ampbench/workloads/registry.h>
#include <torch/torch.h>

namespace {

constexpr std::int64_t kVocabulary = 1000;
constexpr std::int64_t kEmbedding = 64;
constexpr std::int64_t kHidden = 128;
constexpr std::int64_t kSequence = 32;
constexpr std::int64_t kClasses = 5;

struct GruClassifierImpl : torch::nn::Module {
  GruClassifierImpl()
      : embedding(register_module("embedding", torch::nn::Embedding(kVocabulary, kEmbedding))),
        gru(register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(kEmbedding, kHidden).batch_first(true)))),
        fc(register_module("fc", torch::nn::Linear(kHidden, kClasses))) {}
  torch::Tensor forward(const torch::Tensor& tokens) {
    const auto hidden = std::get<1>(gru(embedding(tokens)));  // [layers, batch, hidden]
    return fc(hidden[-1]);
  }
  torch::nn::Embedding embedding;
  torch::nn::GRU gru;
  torch::nn::Linear fc;
};
TORCH_MODULE(GruClassifier);

// Forward multiply-adds x 2: per token the GRU's three gates multiply the input (E x H) and the
// hidden state (H x H); the classifier once per sequence. Times 3 for forward + backward.
double gru_flops_per_step(std::int64_t batch) {
  const double per_token = 2.0 * 3.0 * (kEmbedding * kHidden + kHidden * kHidden);
  const double forward = batch * (kSequence * per_token + 2.0 * kHidden * kClasses);
  return 3.0 * forward;
}

std::unique_ptr<ampbench::workloads::Workload> make_gru_classifier(
    const ampbench::workloads::WorkloadOptions& options) {
  const std::int64_t batch = options.batch.value_or(32);
  const auto seed = static_cast<std::int64_t>(options.seed);
  torch::manual_seed(seed);
  GruClassifier model;
  ampbench::workloads::ModuleWorkloadSpec spec;
  spec.name = "gru_classifier";
  spec.description = "embedding 1000x64, GRU 64->128 over 32 tokens, fc 128->5, batch " + std::to_string(batch);
  spec.module = model.ptr();
  spec.forward = ampbench::workloads::forward_of(model);
  // The class is the sum of the first four token ids modulo 5: learnable, and every batch is
  // drawn from its own generator.
  spec.batch = [batch, seed](std::int64_t index) {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(seed * 1000003 + index));
    auto tokens = at::randint(kVocabulary, {batch, kSequence}, generator, torch::kLong);
    auto labels = tokens.narrow(1, 0, 4).sum(1).remainder(kClasses);
    return ampbench::workloads::Batch{tokens, labels};
  };
  spec.loss = [](const torch::Tensor& logits, const torch::Tensor& labels) {
    return torch::nn::functional::cross_entropy(logits, labels);
  };
  spec.optimizer = [](std::vector<torch::Tensor> parameters) {
    return std::make_unique<torch::optim::Adam>(std::move(parameters), torch::optim::AdamOptions(1e-3));
  };
  spec.tokens_per_step = batch * kSequence;
  spec.flops_per_step = gru_flops_per_step(batch);
  return ampbench::workloads::make_module_workload(std::move(spec), options);
}

}  // namespace

AMPBENCH_WORKLOAD("gru_classifier", "embedding + GRU sequence classifier on random token ids (CrossEntropy, Adam)",
                  make_gru_classifier);
