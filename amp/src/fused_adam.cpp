#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/serialize/archive.h>

#include <type_traits>

#include "ampbench/amp/fused_optimizers.h"
#include "fused_optimizer_support.h"

namespace ampbench::amp {
namespace {

template <typename Options>
constexpr bool kDecoupledWeightDecay = std::is_same_v<Options, torch::optim::AdamWOptions>;

template <typename Options>
constexpr const char* kName = kDecoupledWeightDecay<Options> ? "FusedAdamW" : "FusedAdam";

template <typename Options>
void check_options(const Options& options) {
  const char* name = kName<Options>;
  const auto [beta1, beta2] = options.betas();
  TORCH_CHECK_VALUE(options.lr() >= 0, name, ": invalid learning rate ", options.lr());
  TORCH_CHECK_VALUE(options.eps() >= 0, name, ": invalid epsilon ", options.eps());
  TORCH_CHECK_VALUE(0 <= beta1 && beta1 < 1, name, ": invalid beta1 ", beta1);
  TORCH_CHECK_VALUE(0 <= beta2 && beta2 < 1, name, ": invalid beta2 ", beta2);
  TORCH_CHECK_VALUE(options.weight_decay() >= 0, name, ": invalid weight_decay ", options.weight_decay());
}

// at::_fused_adam_ and at::_fused_adamw_ with a host learning rate (each also has a tensor-lr overload).
using FusedAdamKernel = void (*)(at::TensorList, at::TensorList, at::TensorList, at::TensorList, at::TensorList,
                                 at::TensorList, double, double, double, double, double, bool, bool,
                                 const std::optional<at::Tensor>&, const std::optional<at::Tensor>&);

// State tensors as Python's fused Adam creates them on a parameter's first step.
FusedAdamParamState& state_of(std::unique_ptr<torch::optim::OptimizerParamState>& slot, const at::Tensor& param,
                              bool amsgrad) {
  if (!slot) {
    auto state = std::make_unique<FusedAdamParamState>();
    state->step(at::zeros({}, param.options().dtype(at::kFloat)));
    state->exp_avg(at::zeros_like(param, at::MemoryFormat::Preserve));
    state->exp_avg_sq(at::zeros_like(param, at::MemoryFormat::Preserve));
    if (amsgrad) state->max_exp_avg_sq(at::zeros_like(param, at::MemoryFormat::Preserve));
    slot = std::move(state);
  }
  return static_cast<FusedAdamParamState&>(*slot);
}

}  // namespace

void FusedAdamParamState::serialize(torch::serialize::InputArchive& archive) {
  // A fresh tensor per key: try_read() copies into a defined tensor with set_() instead of
  // replacing it, so reusing one would alias every state tensor.
  const auto read = [&](const char* key) {
    torch::Tensor tensor;
    archive.try_read(key, tensor, /*is_buffer=*/true);
    return tensor;
  };
  step(read("step"));
  exp_avg(read("exp_avg"));
  exp_avg_sq(read("exp_avg_sq"));
  max_exp_avg_sq(read("max_exp_avg_sq"));
}

void FusedAdamParamState::serialize(torch::serialize::OutputArchive& archive) const {
  for (const auto& [key, tensor] :
       {std::pair{"step", step()}, std::pair{"exp_avg", exp_avg()}, std::pair{"exp_avg_sq", exp_avg_sq()},
        std::pair{"max_exp_avg_sq", max_exp_avg_sq()}}) {
    if (tensor.defined()) archive.write(key, tensor, /*is_buffer=*/true);
  }
}

template <typename Options>
FusedAdamFamily<Options>::FusedAdamFamily(const std::vector<torch::optim::OptimizerParamGroup>& param_groups,
                                          Options defaults)
    : FusedOptimizer(param_groups, std::make_unique<Options>(defaults)) {
  check_options(defaults);
}

template <typename Options>
FusedAdamFamily<Options>::FusedAdamFamily(std::vector<torch::Tensor> params, Options defaults)
    : FusedAdamFamily({torch::optim::OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

template <typename Options>
void FusedAdamFamily<Options>::fused_step(const std::optional<at::Tensor>& grad_scale,
                                          const std::optional<at::Tensor>& found_inf) {
  at::NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto& options = static_cast<const Options&>(group.options());
    const auto [beta1, beta2] = options.betas();
    // lists: params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps
    std::vector<detail::TensorBucket> buckets;
    for (auto& param : group.params()) {
      if (!param.grad().defined()) continue;
      detail::check_fusable(param, kName<Options>);
      auto& state = state_of(state_[param.unsafeGetTensorImpl()], param, options.amsgrad());
      auto& bucket = detail::bucket_for(buckets, param, 6);
      bucket.lists[0].push_back(param);
      bucket.lists[1].push_back(param.grad());
      bucket.lists[2].push_back(state.exp_avg());
      bucket.lists[3].push_back(state.exp_avg_sq());
      if (options.amsgrad()) bucket.lists[4].push_back(state.max_exp_avg_sq());
      bucket.lists[5].push_back(state.step());
    }
    for (auto& bucket : buckets) {
      auto& steps = bucket.lists[5];
      const auto scale_here = detail::on_device(grad_scale, bucket.device);
      const auto inf_here = detail::on_device(found_inf, bucket.device);
      // As Python: count the step first, then take it back on the device if it was skipped.
      at::_foreach_add_(steps, 1);
      const auto kernel = kDecoupledWeightDecay<Options> ? static_cast<FusedAdamKernel>(&at::_fused_adamw_)
                                                         : static_cast<FusedAdamKernel>(&at::_fused_adam_);
      kernel(bucket.lists[0], bucket.lists[1], bucket.lists[2], bucket.lists[3], bucket.lists[4], steps, options.lr(),
             beta1, beta2, options.weight_decay(), options.eps(), options.amsgrad(), /*maximize=*/false, scale_here,
             inf_here);
      if (inf_here) at::_foreach_sub_(steps, std::vector<at::Tensor>(steps.size(), *inf_here));
    }
  }
}

template <typename Options>
void FusedAdamFamily<Options>::save(torch::serialize::OutputArchive& archive) const {
  torch::optim::serialize<FusedAdamParamState, Options>(archive, *this);
}

template <typename Options>
void FusedAdamFamily<Options>::load(torch::serialize::InputArchive& archive) {
  torch::optim::serialize<FusedAdamParamState, Options>(archive, *this);
}

template class FusedAdamFamily<torch::optim::AdamOptions>;
template class FusedAdamFamily<torch::optim::AdamWOptions>;

}  // namespace ampbench::amp
