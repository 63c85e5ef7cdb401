#include "ampbench/workloads/module_workload.h"

#include <stdexcept>

namespace ampbench::workloads {
namespace {

class ModuleWorkload final : public Workload {
 public:
  ModuleWorkload(ModuleWorkloadSpec spec, const WorkloadOptions& options)
      : spec_(std::move(spec)), device_(options.device) {
    spec_.module->to(device_);
    if (spec_.samples_per_step == 0) spec_.samples_per_step = make_batch(0).input.size(0);
  }

  std::string name() const override { return spec_.name; }
  std::string describe() const override { return spec_.description; }
  torch::nn::Module& module() override { return *spec_.module; }
  torch::Tensor loss(const Batch& batch) override { return spec_.loss(spec_.forward(batch.input), batch.target); }
  std::unique_ptr<torch::optim::Optimizer> make_optimizer() override {
    return spec_.optimizer(spec_.module->parameters());
  }
  Batch make_batch(std::int64_t index) override {
    auto batch = spec_.batch(index);
    return {batch.input.to(device_), batch.target.to(device_)};
  }
  std::optional<double> flops_per_step() const override { return spec_.flops_per_step; }
  std::int64_t samples_per_step() const override { return spec_.samples_per_step; }
  std::int64_t tokens_per_step() const override { return spec_.tokens_per_step; }

 private:
  ModuleWorkloadSpec spec_;
  torch::Device device_;
};

void require_part(bool present, const ModuleWorkloadSpec& spec, const char* part) {
  if (!present) throw std::invalid_argument("workload '" + spec.name + "': the spec has no " + part);
}

}  // namespace

std::unique_ptr<Workload> make_module_workload(ModuleWorkloadSpec spec, const WorkloadOptions& options) {
  require_part(spec.module != nullptr, spec, "module");
  require_part(static_cast<bool>(spec.forward), spec, "forward");
  require_part(static_cast<bool>(spec.batch), spec, "batch function");
  require_part(static_cast<bool>(spec.loss), spec, "loss");
  require_part(static_cast<bool>(spec.optimizer), spec, "optimizer factory");
  return std::make_unique<ModuleWorkload>(std::move(spec), options);
}

}  // namespace ampbench::workloads
