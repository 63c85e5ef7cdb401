#include "ampbench/amp/custom_function.h"

#include <torch/csrc/autograd/custom_function.h>

#include <string>

#include "op_registry.h"
#include "thread_state.h"

namespace ampbench::amp {
namespace {

// ctx->saved_data keys, per device type so that one function may record CPU and CUDA states.
std::string enabled_key(c10::DeviceType device_type) {
  return "ampbench.amp.custom_fwd." + c10::DeviceTypeName(device_type, /*lower_case=*/true) + ".enabled";
}
std::string dtype_key(c10::DeviceType device_type) {
  return "ampbench.amp.custom_fwd." + c10::DeviceTypeName(device_type, /*lower_case=*/true) + ".dtype";
}

void save_state(torch::autograd::AutogradContext* ctx, c10::DeviceType device_type, bool enabled,
                c10::ScalarType dtype) {
  TORCH_CHECK_VALUE(ctx != nullptr, "CustomForwardScope: ctx is null; pass forward's AutogradContext*");
  ctx->saved_data[enabled_key(device_type)] = enabled;
  ctx->saved_data[dtype_key(device_type)] = static_cast<std::int64_t>(dtype);
}

}  // namespace

CustomForwardScope::CustomForwardScope(torch::autograd::AutogradContext* ctx, c10::DeviceType device_type)
    : device_type_(device_type) {
  detail::check_autocast_device(device_type);
  const auto caller = detail::read_switches(device_type);
  save_state(ctx, device_type, caller.enabled, caller.dtype);
}

CustomForwardScope::CustomForwardScope(torch::autograd::AutogradContext* ctx, c10::DeviceType device_type,
                                       c10::ScalarType cast_inputs)
    : device_type_(device_type) {
  detail::check_autocast_device(device_type);
  TORCH_CHECK_VALUE(c10::isFloatingType(cast_inputs),
                    "CustomForwardScope: cast_inputs must be a floating-point dtype, got ", cast_inputs);
  const auto caller = detail::read_switches(device_type);
  // As custom_fwd: backward of a cast_inputs function never runs under autocast.
  save_state(ctx, device_type, /*enabled=*/false, caller.dtype);
  if (caller.enabled) {
    cast_to_ = cast_inputs;
    disabled_.reset(new Autocast(Autocast::disabled(device_type)));
  }
}

at::Tensor CustomForwardScope::cast(const at::Tensor& input) const {
  if (!cast_to_ || !detail::is_autocast_eligible(input, device_type_) || input.scalar_type() == *cast_to_) {
    return input;
  }
  return input.to(*cast_to_);
}

CustomBackwardScope::CustomBackwardScope(torch::autograd::AutogradContext* ctx, c10::DeviceType device_type) {
  TORCH_CHECK_VALUE(ctx != nullptr, "CustomBackwardScope: ctx is null; pass backward's AutogradContext*");
  const auto enabled = ctx->saved_data.find(enabled_key(device_type));
  const auto dtype = ctx->saved_data.find(dtype_key(device_type));
  TORCH_CHECK(enabled != ctx->saved_data.end() && dtype != ctx->saved_data.end(),
              "CustomBackwardScope: forward recorded no autocast state for ",
              c10::DeviceTypeName(device_type, /*lower_case=*/true),
              "; put a CustomForwardScope for the same device type at the top of forward");
  if (enabled->second.toBool()) {
    autocast_ = std::make_unique<Autocast>(device_type, static_cast<c10::ScalarType>(dtype->second.toInt()));
  } else {
    autocast_.reset(new Autocast(Autocast::disabled(device_type)));
  }
}

}  // namespace ampbench::amp
