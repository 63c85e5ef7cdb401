// A program on ampbench::main with one good user workload and four wrong in the ways a user's can
// be: a factory that throws, a model without parameters, a loss that is not a scalar and batches
// on another device. Each wrong one must become failed cells naming it; the run goes on.
#include <ampbench/workloads/module_workload.h>
#include <ampbench/workloads/registry.h>
#include <torch/torch.h>

#include "support/linear_workload_spec.h"

namespace {

using namespace ampbench::workloads;

// Delegates to a module workload but hands out its batches on the meta device.
class MetaBatches final : public Workload {
 public:
  explicit MetaBatches(std::unique_ptr<Workload> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return "meta_batches"; }
  std::string describe() const override { return inner_->describe(); }
  torch::nn::Module& module() override { return inner_->module(); }
  torch::Tensor loss(const Batch& batch) override { return inner_->loss(batch); }
  std::unique_ptr<torch::optim::Optimizer> make_optimizer() override { return inner_->make_optimizer(); }
  Batch make_batch(std::int64_t index) override {
    auto batch = inner_->make_batch(index);
    return {batch.input.to(torch::kMeta), batch.target.to(torch::kMeta)};
  }
  std::optional<double> flops_per_step() const override { return inner_->flops_per_step(); }
  std::int64_t samples_per_step() const override { return inner_->samples_per_step(); }

 private:
  std::unique_ptr<Workload> inner_;
};

}  // namespace

AMPBENCH_WORKLOAD("good_linear", "a correct user workload", [](const WorkloadOptions& options) {
  return make_module_workload(ampbench::testing::linear_workload_spec("good_linear"), options);
});
AMPBENCH_WORKLOAD("throwing_factory", "its factory throws", [](const WorkloadOptions&) -> std::unique_ptr<Workload> {
  throw std::runtime_error("no such dataset: /data/missing");
});
AMPBENCH_WORKLOAD("no_parameters", "a model without parameters", [](const WorkloadOptions& options) {
  auto spec = ampbench::testing::linear_workload_spec("no_parameters");
  spec.module = std::make_shared<torch::nn::Module>();
  return make_module_workload(std::move(spec), options);
});
AMPBENCH_WORKLOAD("vector_loss", "a loss that is not a scalar", [](const WorkloadOptions& options) {
  auto spec = ampbench::testing::linear_workload_spec("vector_loss");
  spec.loss = [](const torch::Tensor& output, const torch::Tensor& target) { return (output - target).pow(2); };
  return make_module_workload(std::move(spec), options);
});
AMPBENCH_WORKLOAD("meta_batches", "batches on another device", [](const WorkloadOptions& options) {
  auto spec = ampbench::testing::linear_workload_spec("meta_batches");
  return std::make_unique<MetaBatches>(make_module_workload(std::move(spec), options));
});
