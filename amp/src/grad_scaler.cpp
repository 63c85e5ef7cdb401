// The iteration protocol of GradScaler: scale -> (unscale_) -> step -> update, with the
// per-optimizer state machine of torch.amp.GradScaler. State and telemetry access live in
// grad_scaler_state.cpp.
#include "ampbench/amp/grad_scaler.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>

#include <algorithm>

#include "ampbench/amp/scale_aware_optimizer.h"

namespace ampbench::amp {
namespace {

// A device type is usable when both fused AMP ops have a kernel for it, and its tensors can be
// read back (Meta has kernels but no data).
void check_device_supported(c10::DeviceType device_type) {
  TORCH_CHECK_NOT_IMPLEMENTED(device_type != c10::DeviceType::Meta,
                              "GradScaler: device type 'meta' holds no data, so step() could not "
                              "read the inf/NaN flag; use cpu or cuda");
  c10::DispatchKey key = c10::DispatchKey::Undefined;
  try {
    key = c10::computeDispatchKey(at::kFloat, at::kStrided, c10::Device(device_type));
  } catch (const c10::Error&) {
    // Falls through to the error below, which names the device type.
  }
  for (const char* op : {"aten::_amp_foreach_non_finite_check_and_unscale_", "aten::_amp_update_scale_"}) {
    const auto handle = c10::Dispatcher::singleton().findSchema({op, ""});
    TORCH_CHECK_NOT_IMPLEMENTED(key != c10::DispatchKey::Undefined && handle && handle->hasKernelForDispatchKey(key),
                                "GradScaler: device type '", c10::DeviceTypeName(device_type, /*lower_case=*/true),
                                "' is not supported: this LibTorch build has no ", op, " kernel for it");
  }
}

struct GradGroup {
  c10::Device device;
  at::ScalarType dtype;
  std::vector<at::Tensor> grads;
};

// The tensor to unscale for one parameter's gradient: the gradient itself, or the values of a
// sparse one (coalesced first when fp16, where duplicates could overflow once summed).
at::Tensor unscalable_grad(at::Tensor& param) {
  if (!param.grad().is_sparse()) {
    return param.grad();
  }
  if (param.grad().scalar_type() == at::kHalf) {
    param.mutable_grad() = param.grad().coalesce();
  }
  return param.grad()._values();
}

}  // namespace

GradScaler::GradScaler(c10::DeviceType device_type, GradScalerOptions options)
    : device_type_(device_type),
      enabled_(options.enabled),
      init_scale_(options.init_scale),
      growth_factor_(options.growth_factor),
      backoff_factor_(options.backoff_factor),
      growth_interval_(options.growth_interval) {
  if (enabled_ && device_type_ == c10::DeviceType::CUDA && !at::hasCUDA()) {
    TORCH_WARN("ampbench GradScaler is enabled for CUDA, but CUDA is not available. Disabling.");
    enabled_ = false;
  }
  if (!enabled_) {
    return;
  }
  check_device_supported(device_type_);
  TORCH_CHECK_VALUE(growth_factor_ > 1.0, "GradScaler: growth_factor must be > 1.0, got ", growth_factor_);
  TORCH_CHECK_VALUE(backoff_factor_ < 1.0, "GradScaler: backoff_factor must be < 1.0, got ", backoff_factor_);
}

void GradScaler::require_scale(const char* caller) const {
  TORCH_CHECK(scale_.defined() && growth_tracker_.defined(), "GradScaler::", caller,
              "() called before scale(): the scale is not initialised. Call "
              "scaler.scale(loss).backward() earlier in the iteration.");
}

void GradScaler::lazy_init(const c10::Device& device) {
  if (scale_.defined()) {
    return;
  }
  scale_ = at::full({}, init_scale_, at::TensorOptions().dtype(at::kFloat).device(device));
  growth_tracker_ = at::full({}, init_growth_tracker_, at::TensorOptions().dtype(at::kInt).device(device));
}

void GradScaler::check_output(const torch::Tensor& output) const {
  TORCH_CHECK_VALUE(output.defined(), "GradScaler::scale: the output tensor is undefined");
  TORCH_CHECK_TYPE(output.is_floating_point(),
                   "GradScaler::scale: expected a floating-point loss or output, got a tensor of "
                   "dtype ",
                   output.scalar_type());
  TORCH_CHECK_VALUE(output.device().type() == device_type_, "GradScaler::scale: this scaler is for ",
                    c10::DeviceTypeName(device_type_, true), " but the output is on ", output.device());
}

torch::Tensor GradScaler::scale(const torch::Tensor& output) {
  if (!enabled_) {
    return output;
  }
  check_output(output);
  lazy_init(output.device());
  return output * scale_.to(output.device(), /*non_blocking=*/true);
}

std::vector<torch::Tensor> GradScaler::scale(const std::vector<torch::Tensor>& outputs) {
  if (!enabled_) {
    return outputs;
  }
  std::vector<std::pair<c10::Device, at::Tensor>> scale_per_device;
  std::vector<torch::Tensor> scaled;
  scaled.reserve(outputs.size());
  for (const auto& output : outputs) {
    check_output(output);
    lazy_init(output.device());
    auto it = std::find_if(scale_per_device.begin(), scale_per_device.end(),
                           [&](const auto& entry) { return entry.first == output.device(); });
    if (it == scale_per_device.end()) {
      scale_per_device.emplace_back(output.device(), scale_.to(output.device(), /*non_blocking=*/true));
      it = std::prev(scale_per_device.end());
    }
    scaled.push_back(output * it->second);
  }
  return scaled;
}

std::vector<std::pair<c10::Device, at::Tensor>> GradScaler::unscale_grads(torch::optim::Optimizer& optimizer,
                                                                          const at::Tensor& inv_scale,
                                                                          bool allow_fp16) {
  at::NoGradGuard no_grad;
  std::vector<GradGroup> groups;
  for (auto& param_group : optimizer.param_groups()) {
    for (auto& param : param_group.params()) {
      if (!param.grad().defined()) {
        continue;
      }
      TORCH_CHECK_VALUE(allow_fp16 || param.grad().scalar_type() != at::kHalf,
                        "Attempting to unscale FP16 gradients: keep the parameters in float32 "
                        "(autocast casts them per op) so that their gradients are float32.");
      at::Tensor grad = unscalable_grad(param);
      auto group = std::find_if(groups.begin(), groups.end(), [&](const GradGroup& g) {
        return g.device == grad.device() && g.dtype == grad.scalar_type();
      });
      if (group == groups.end()) {
        groups.push_back({grad.device(), grad.scalar_type(), {}});
        group = std::prev(groups.end());
      }
      group->grads.push_back(std::move(grad));
    }
  }

  // One found_inf flag and one copy of inv_scale per device; the fused op checks and unscales a
  // whole (device, dtype) group in one launch.
  std::vector<std::pair<c10::Device, at::Tensor>> found_inf_per_device;
  std::vector<std::pair<c10::Device, at::Tensor>> inv_scale_per_device;
  for (auto& group : groups) {
    const auto matches = [&](const auto& entry) { return entry.first == group.device; };
    auto found = std::find_if(found_inf_per_device.begin(), found_inf_per_device.end(), matches);
    if (found == found_inf_per_device.end()) {
      found_inf_per_device.emplace_back(group.device,
                                        at::zeros({}, at::TensorOptions().dtype(at::kFloat).device(group.device)));
      inv_scale_per_device.emplace_back(group.device, inv_scale.to(group.device, /*non_blocking=*/true));
      found = std::prev(found_inf_per_device.end());
    }
    const auto inv = std::find_if(inv_scale_per_device.begin(), inv_scale_per_device.end(), matches);
    at::_amp_foreach_non_finite_check_and_unscale_(group.grads, found->second, inv->second);
  }
  return found_inf_per_device;
}

void GradScaler::unscale_(torch::optim::Optimizer& optimizer) {
  if (!enabled_) {
    return;
  }
  require_scale("unscale_");
  auto& state = per_optimizer_[&optimizer];
  TORCH_CHECK(state.stage != OptimizerStage::kUnscaled,
              "unscale_() has already been called on this optimizer since the last update().");
  TORCH_CHECK(state.stage != OptimizerStage::kStepped, "unscale_() is being called after step().");

  state.found_inf_per_device = unscale_grads(optimizer, inv_scale(), /*allow_fp16=*/false);
  state.stage = OptimizerStage::kUnscaled;
}

at::Tensor GradScaler::inv_scale() const {
  // As PyTorch: the reciprocal in double, rounded once to float.
  return scale_.to(at::kDouble).reciprocal().to(at::kFloat);
}

std::optional<at::Tensor> GradScaler::pending_inv_scale(const torch::optim::Optimizer& optimizer) const {
  if (!enabled_) {
    return std::nullopt;
  }
  require_scale("pending_inv_scale");
  const auto it = per_optimizer_.find(&optimizer);
  const OptimizerStage stage = it == per_optimizer_.end() ? OptimizerStage::kReady : it->second.stage;
  TORCH_CHECK(stage != OptimizerStage::kStepped,
              "GradScaler::pending_inv_scale() called after step() on this optimizer: whether its "
              "gradients still carry the scale is not known on the host then. Ask before step().");
  if (stage == OptimizerStage::kUnscaled) {
    return std::nullopt;
  }
  return inv_scale();
}

at::Tensor GradScaler::found_inf_on_scale_device(const OptimizerState& state) const {
  if (state.found_inf_per_device.size() == 1 && state.found_inf_per_device.front().first == scale_.device()) {
    return state.found_inf_per_device.front().second;
  }
  at::Tensor total = at::zeros_like(scale_);
  for (const auto& [device, found_inf] : state.found_inf_per_device) {
    total.add_(found_inf.to(scale_.device(), /*non_blocking=*/true));
  }
  return total;
}

StepOutcome GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!enabled_) {
    optimizer.step();
    return StepOutcome::kStepped;
  }
  require_scale("step");
  auto& state = per_optimizer_[&optimizer];
  TORCH_CHECK(state.stage != OptimizerStage::kStepped, "step() has already been called since the last update().");
  auto* scale_aware = dynamic_cast<ScaleAwareOptimizer*>(&optimizer);
  const bool unscaled = state.stage == OptimizerStage::kUnscaled;
  if (!unscaled && scale_aware != nullptr) {
    // As Python's _check_inf_per_device: the fused check with an inverse scale of 1 only looks.
    state.found_inf_per_device = unscale_grads(optimizer, at::ones_like(scale_), /*allow_fp16=*/true);
  } else if (!unscaled) {
    unscale_(optimizer);
  }
  TORCH_CHECK(!state.found_inf_per_device.empty(),
              "No inf checks were recorded for this optimizer: none of its parameters has a "
              "gradient. Call backward() on scaler.scale(loss) before step().");
  state.stage = OptimizerStage::kStepped;

  if (scale_aware != nullptr) {
    scale_aware->step_with_scale(unscaled ? std::nullopt : std::optional<at::Tensor>(scale_),
                                 found_inf_on_scale_device(state));
    return StepOutcome::kDecidedOnDevice;
  }
  // The one deliberate host sync of the iteration: whether to run the optimizer is a host
  // decision, because torch::optim optimizers cannot take found_inf as a device tensor.
  if (read_double(found_inf_on_scale_device(state)) != 0.0) {
    return StepOutcome::kSkipped;
  }
  optimizer.step();
  return StepOutcome::kStepped;
}

at::Tensor GradScaler::combined_found_inf() const {
  at::Tensor combined;
  for (const auto& [optimizer, state] : per_optimizer_) {
    for (const auto& [device, found_inf] : state.found_inf_per_device) {
      const auto here = found_inf.to(scale_.device(), /*non_blocking=*/true);
      combined = combined.defined() ? combined + here : here;
    }
  }
  return combined;
}

void GradScaler::record_telemetry(const at::Tensor& found_inf) {
  at::Tensor row = telemetry_.append(scale_.options());
  at::stack_out(row, {scale_, found_inf.defined() ? found_inf : at::zeros_like(scale_)});
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!enabled_) {
    return;
  }
  require_scale("update");
  const at::Tensor found_inf = combined_found_inf();
  if (new_scale) {
    record_telemetry(found_inf);
    scale_.fill_(*new_scale);
  } else {
    TORCH_CHECK(found_inf.defined(),
                "No inf checks were recorded prior to update(): call step() (or unscale_()) on "
                "an optimizer with gradients first.");
    record_telemetry(found_inf);
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf, growth_factor_, backoff_factor_, growth_interval_);
  }
  per_optimizer_.clear();
}

void GradScaler::update(const torch::Tensor& new_scale) {
  if (!enabled_) {
    return;
  }
  require_scale("update");
  TORCH_CHECK_VALUE(new_scale.defined() && new_scale.device().type() == device_type_ && new_scale.numel() == 1 &&
                        !new_scale.requires_grad(),
                    "GradScaler::update: new_scale should be a float or a one-element tensor on ",
                    c10::DeviceTypeName(device_type_, true), " with requires_grad=false");
  record_telemetry(combined_found_inf());
  scale_.copy_(new_scale.reshape({}));
  per_optimizer_.clear();
}

}  // namespace ampbench::amp
