// The per-thread state autocast runs on: at::autocast's switches (enabled, dtype, nesting) and
// ampbench's weight-cast cache. Private to ampbench::amp; the one place that includes
// ATen/autocast_mode.h (a heavy header), so that the other files stay cheap to compile.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace ampbench::amp::detail {

struct AutocastSwitches {
  bool enabled = false;
  c10::ScalarType dtype = c10::ScalarType::Undefined;
};

[[nodiscard]] AutocastSwitches read_switches(c10::DeviceType device_type);
void write_switches(c10::DeviceType device_type, AutocastSwitches switches);

// The thread's autocast dtype for a device type: what kLowerPrecision casts to.
[[nodiscard]] c10::ScalarType lower_precision_dtype(c10::DeviceType device_type);

// at::autocast's nesting depth, shared with LibTorch; leaving the outermost level clears both
// ampbench's and LibTorch's cast caches, as Python's torch.autocast does.
void enter_autocast_nesting();
void leave_autocast_nesting();

// Whether t is a tensor autocast may cast on this device type: defined, floating-point but not
// float64, on that device type.
[[nodiscard]] bool is_autocast_eligible(const at::Tensor& t, c10::DeviceType device_type);

// t cast to `to` if eligible and of another dtype, else t itself. Casts of float32 leaves that
// require grad to the lower-precision dtype are cached until the outermost scope exits.
[[nodiscard]] at::Tensor cast_for_autocast(const at::Tensor& t, c10::ScalarType to, c10::DeviceType device_type);

}  // namespace ampbench::amp::detail
