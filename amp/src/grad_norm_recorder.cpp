#include "ampbench/amp/grad_norm_recorder.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <string>
#include <utility>

namespace ampbench::amp {
namespace {

std::vector<at::Tensor> grads_of(const torch::optim::Optimizer& optimizer) {
  std::vector<at::Tensor> grads;
  for (const auto& group : optimizer.param_groups()) {
    for (const auto& param : group.params()) {
      if (param.grad().defined()) grads.push_back(param.grad());
    }
  }
  return grads;
}

// The per-tensor norms, one _foreach_norm per (device, dtype) group as get_total_norm groups them,
// each in float32 (float64 for float64 gradients) so that float16 gradients cannot overflow it.
std::vector<at::Tensor> per_tensor_norms(const std::vector<at::Tensor>& grads, const c10::Device& destination) {
  std::vector<std::pair<std::pair<c10::Device, at::ScalarType>, std::vector<at::Tensor>>> groups;
  for (const auto& grad : grads) {
    const auto key = std::pair{grad.device(), grad.scalar_type()};
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (group == groups.end()) {
      groups.push_back({key, {}});
      group = std::prev(groups.end());
    }
    // A sparse gradient's norm is that of its values, duplicates summed first (coalescing a
    // sparse CUDA gradient costs a host sync; dense gradients never do).
    group->second.push_back(grad.is_sparse() ? grad.coalesce()._values() : grad);
  }
  std::vector<at::Tensor> norms;
  for (const auto& [key, tensors] : groups) {
    const auto dtype = key.second == at::kDouble ? at::kDouble : at::kFloat;
    for (auto& norm : at::_foreach_norm(tensors, 2, dtype)) {
      norms.push_back(norm.to(destination, /*non_blocking=*/true));
    }
  }
  return norms;
}

}  // namespace

void GradNormRecorder::record(const torch::optim::Optimizer& optimizer) {
  record_grads(grads_of(optimizer), {}, "record(optimizer)");
}

void GradNormRecorder::record(const torch::optim::Optimizer& optimizer, const GradScaler& scaler) {
  const auto inv_scale = scaler.pending_inv_scale(optimizer);
  record_grads(grads_of(optimizer), inv_scale.value_or(at::Tensor()), "record(optimizer, scaler)");
}

void GradNormRecorder::record(const std::vector<at::Tensor>& params) {
  std::vector<at::Tensor> grads;
  for (const auto& param : params) {
    if (param.grad().defined()) grads.push_back(param.grad());
  }
  record_grads(grads, {}, "record(params)");
}

void GradNormRecorder::record_grads(const std::vector<at::Tensor>& grads, const at::Tensor& inv_scale,
                                    const char* caller) {
  TORCH_CHECK_VALUE(!grads.empty(), "GradNormRecorder::", caller,
                    ": no parameter has a gradient; call it after backward() and before zero_grad()");
  at::NoGradGuard no_grad;
  // The first record fixes where the history lives; later steps' norms are moved there.
  const c10::Device device = history_.size() > 0 ? history_.device() : grads.front().device();
  const at::Tensor total = at::linalg_vector_norm(at::stack(per_tensor_norms(grads, device)), 2);
  at::Tensor slot = history_.append(at::TensorOptions().dtype(at::kFloat).device(device))[0];
  if (inv_scale.defined()) {
    // Multiplying the norm by 1/scale equals the norm of the gradients multiplied by it (what
    // unscale_ does) bit for bit when the scale is a power of two, as dynamic scaling keeps it.
    at::mul_out(slot, total, inv_scale.to(device, /*non_blocking=*/true));
  } else {
    slot.copy_(total);
  }
}

std::vector<double> GradNormRecorder::norms() const {
  std::vector<double> out;
  if (history_.size() == 0) {
    return out;
  }
  ++host_syncs_;  // one copy of the whole history to the host
  const at::Tensor host = history_.to_host().reshape({-1}).contiguous();
  out.assign(host.data_ptr<double>(), host.data_ptr<double>() + host.numel());
  return out;
}

}  // namespace ampbench::amp
