#include "fused_optimizer_support.h"

#include "ampbench/amp/fused_optimizers.h"

#include <ATen/core/grad_mode.h>
#include <c10/util/Exception.h>

#include <algorithm>

namespace ampbench::amp::detail {

TensorBucket& bucket_for(std::vector<TensorBucket>& buckets, const at::Tensor& param, std::size_t list_count) {
  const auto match = std::find_if(buckets.begin(), buckets.end(), [&](const TensorBucket& bucket) {
    return bucket.device == param.device() && bucket.dtype == param.scalar_type();
  });
  if (match != buckets.end()) return *match;
  buckets.push_back({param.device(), param.scalar_type(), std::vector<std::vector<at::Tensor>>(list_count)});
  return buckets.back();
}

std::optional<at::Tensor> on_device(const std::optional<at::Tensor>& tensor, const c10::Device& device) {
  if (!tensor) return std::nullopt;
  return tensor->to(device, /*non_blocking=*/true);
}

void check_fusable(const at::Tensor& param, const char* optimizer) {
  TORCH_CHECK_VALUE(!param.grad().is_sparse(), optimizer, " does not support sparse gradients");
  TORCH_CHECK_TYPE(param.is_floating_point(), optimizer, " needs floating-point parameters, got ", param.scalar_type());
}

}  // namespace ampbench::amp::detail

namespace ampbench::amp {

torch::Tensor FusedOptimizer::step(LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);  // as torch::optim optimizers evaluate their closure
    loss = closure();
  }
  fused_step(std::nullopt, std::nullopt);
  return loss;
}

void FusedOptimizer::step_with_scale(const std::optional<at::Tensor>& grad_scale, const at::Tensor& found_inf) {
  fused_step(grad_scale, found_inf);
}

}  // namespace ampbench::amp
