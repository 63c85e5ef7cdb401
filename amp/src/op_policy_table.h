// The built-in op policy tables, one per device type (private to ampbench::amp).
#pragma once

#include "ampbench/amp/op_policy.h"

#include <span>

namespace ampbench::amp::detail {

struct DefaultOpPolicy {
  const char* op;  // "name" or "name.overload", namespace aten
  CastPolicy policy;
};

// The table for CPU or CUDA; an empty span for any other device type.
[[nodiscard]] std::span<const DefaultOpPolicy> default_op_table(c10::DeviceType device_type) noexcept;

}  // namespace ampbench::amp::detail
