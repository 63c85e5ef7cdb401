// The op policy of ampbench's autocast: which precision each ATen op runs in inside an Autocast
// scope, per device type. The default tables (op_policy_table.cpp) are ampbench's and reproduce
// LibTorch 2.15's native autocast policy for the ops they list; users may override any op.
#pragma once

#include <c10/core/DeviceType.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ampbench::amp {

// What an autocast kernel does to an op's arguments before it runs the op below the autocast key.
// "Eligible" tensors are floating-point, not float64, and on the scope's device type; nothing
// else is ever cast.
enum class CastPolicy : std::uint8_t {
  // Cast eligible inputs to the scope's dtype (bfloat16 or float16): matmuls, convolutions and
  // attention, where the low-precision kernels are the point of mixed precision.
  kLowerPrecision,
  // Cast eligible inputs to float32: losses, norms and ops whose range or accuracy suffers in
  // 16 bits.
  kFp32,
  // Do not cast; if the first input is eligible and the caller left the op's optional `dtype`
  // argument empty, set it to float32 (softmax, log_softmax, sum, cumsum, ...): the op then
  // accumulates and returns float32 without a separate cast.
  kFp32SetOptDtype,
  // Cast eligible inputs to the widest floating type among them (float32 if any input is float32,
  // else the scope's dtype): multi-input ops whose inputs must agree (cat, stack, addcmul, ...).
  kPromote,
  // Run the op unchanged below the autocast key, no casts: opts an op out of its default policy.
  kPassthrough,
  // Refuse to run inside an autocast scope, with a message naming the safe alternative
  // (binary_cross_entropy on CUDA, as in PyTorch).
  kBanned,
};

[[nodiscard]] std::string_view to_string(CastPolicy policy) noexcept;

// One op of a table. `op` is the ATen operator name without the "aten::" namespace, with its
// overload after a dot where it has one: "addmm", "conv2d.padding", "softmax.int".
struct OpPolicy {
  std::string op;
  CastPolicy policy = CastPolicy::kPassthrough;
};

// The built-in table for a device type (CPU or CUDA); throws std::invalid_argument otherwise.
[[nodiscard]] std::vector<OpPolicy> default_op_policies(c10::DeviceType device_type);

// The table in effect: the defaults with the user's overrides applied, in table order.
[[nodiscard]] std::vector<OpPolicy> op_policies(c10::DeviceType device_type);

// The policy in effect for one op, or nullopt when ampbench's table does not handle it (the op
// then keeps LibTorch's native autocast behaviour, if it has one).
[[nodiscard]] std::optional<CastPolicy> op_policy(c10::DeviceType device_type, std::string_view op);

// Overrides one op's policy for every thread, from now on. The op must be an existing ATen
// operator (std::invalid_argument otherwise, naming it); it need not be in the default table, in
// which case ampbench starts handling it (one dispatcher registration if the kernels are already
// installed). kFp32SetOptDtype needs an op with an optional `dtype` argument.
// Example: set_op_policy(c10::DeviceType::CPU, "layer_norm", CastPolicy::kFp32).
void set_op_policy(c10::DeviceType device_type, std::string_view op, CastPolicy policy);

// Drops every override on every device type: the default tables apply again. Like
// set_op_policy, call it while no thread is inside an autocast scope.
void reset_op_policies();

}  // namespace ampbench::amp
