#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/serialize/archive.h>

#include "ampbench/amp/fused_optimizers.h"
#include "fused_optimizer_support.h"

namespace ampbench::amp {
namespace {

constexpr const char* kName = "FusedSGD";

void check_options(const torch::optim::SGDOptions& options) {
  TORCH_CHECK_VALUE(options.lr() >= 0, kName, ": invalid learning rate ", options.lr());
  TORCH_CHECK_VALUE(options.momentum() >= 0, kName, ": invalid momentum ", options.momentum());
  TORCH_CHECK_VALUE(options.weight_decay() >= 0, kName, ": invalid weight_decay ", options.weight_decay());
  TORCH_CHECK_VALUE(!options.nesterov() || (options.momentum() > 0 && options.dampening() == 0), kName,
                    ": nesterov momentum requires a momentum and zero dampening");
}

}  // namespace

void FusedSGDParamState::serialize(torch::serialize::InputArchive& archive) {
  torch::Tensor buffer;
  archive.try_read("momentum_buffer", buffer, /*is_buffer=*/true);
  momentum_buffer(buffer);
}

void FusedSGDParamState::serialize(torch::serialize::OutputArchive& archive) const {
  if (momentum_buffer().defined()) archive.write("momentum_buffer", momentum_buffer(), /*is_buffer=*/true);
}

FusedSGD::FusedSGD(const std::vector<torch::optim::OptimizerParamGroup>& param_groups,
                   torch::optim::SGDOptions defaults)
    : FusedOptimizer(param_groups, std::make_unique<torch::optim::SGDOptions>(defaults)) {
  check_options(defaults);
}

FusedSGD::FusedSGD(std::vector<torch::Tensor> params, torch::optim::SGDOptions defaults)
    : FusedSGD({torch::optim::OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

void FusedSGD::fused_step(const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  at::NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto& options = static_cast<const torch::optim::SGDOptions&>(group.options());
    const bool with_momentum = options.momentum() != 0;
    std::vector<detail::TensorBucket> buckets;  // lists: params, grads, momentum buffers
    bool first_step = with_momentum;
    for (auto& param : group.params()) {
      if (!param.grad().defined()) continue;
      detail::check_fusable(param, kName);
      auto& slot = state_[param.unsafeGetTensorImpl()];
      if (!slot) slot = std::make_unique<FusedSGDParamState>();
      auto& state = static_cast<FusedSGDParamState&>(*slot);
      if (with_momentum && state.momentum_buffer().defined()) first_step = false;
      auto& bucket = detail::bucket_for(buckets, param, 3);
      bucket.lists[0].push_back(param);
      bucket.lists[1].push_back(param.grad());
      if (with_momentum) {
        if (!state.momentum_buffer().defined()) {
          state.momentum_buffer(at::zeros_like(param.grad(), at::MemoryFormat::Preserve));
        }
        bucket.lists[2].push_back(state.momentum_buffer());
      }
    }
    for (auto& bucket : buckets) {
      at::_fused_sgd_(bucket.lists[0], bucket.lists[1], bucket.lists[2], options.weight_decay(), options.momentum(),
                      options.lr(), options.dampening(), options.nesterov(), /*maximize=*/false, first_step,
                      detail::on_device(grad_scale, bucket.device), detail::on_device(found_inf, bucket.device));
    }
  }
}

void FusedSGD::save(torch::serialize::OutputArchive& archive) const {
  torch::optim::serialize<FusedSGDParamState, torch::optim::SGDOptions>(archive, *this);
}

void FusedSGD::load(torch::serialize::InputArchive& archive) {
  torch::optim::serialize<FusedSGDParamState, torch::optim::SGDOptions>(archive, *this);
}

}  // namespace ampbench::amp
