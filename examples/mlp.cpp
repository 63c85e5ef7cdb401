// The smallest complete ampbench benchmark of one's own model (docs/own-model.md): an MLP on
// random inputs, registered as "mlp". Build it against an installed ampbench and run
// `mlp run --workloads mlp`. It states no FLOPs: ampbench counts them.
#include <ATen/CPUGeneratorImpl.h>
#include <ampbench/workloads/module_workload.h>
#include <ampbench/workloads/registry.h>
#include <torch/torch.h>

std::unique_ptr<ampbench::workloads::Workload> make_mlp(const ampbench::workloads::WorkloadOptions& options) {
  torch::manual_seed(static_cast<std::int64_t>(options.seed));  // the same weights in every mode
  torch::nn::Sequential model(torch::nn::Linear(256, 512), torch::nn::ReLU(), torch::nn::Linear(512, 10));
  ampbench::workloads::ModuleWorkloadSpec spec;
  spec.name = "mlp";
  spec.description = "MLP 256->512->10, batch 64";
  spec.module = model.ptr();
  spec.forward = ampbench::workloads::forward_of(model);
  spec.batch = [](std::int64_t index) {  // batch `index`, the same on every call
    auto generator = at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(index));
    auto input = at::randn({64, 256}, generator, torch::kFloat32);
    return ampbench::workloads::Batch{input, input.narrow(1, 0, 10).argmax(1)};  // a learnable label
  };
  spec.loss = [](const torch::Tensor& logits, const torch::Tensor& labels) {
    return torch::nn::functional::cross_entropy(logits, labels);
  };
  spec.optimizer = [](std::vector<torch::Tensor> parameters) {
    return std::make_unique<torch::optim::Adam>(std::move(parameters), torch::optim::AdamOptions(1e-3));
  };
  return ampbench::workloads::make_module_workload(std::move(spec), options);
}
AMPBENCH_WORKLOAD("mlp", "MLP: which of the first 10 of 256 inputs is largest", make_mlp);
