#include "ampbench/amp/op_policy.h"

#include "autocast_kernels.h"
#include "op_policy_table.h"
#include "op_registry.h"

#include <array>

namespace ampbench::amp {

std::string_view to_string(CastPolicy policy) noexcept {
  switch (policy) {
    case CastPolicy::kLowerPrecision:
      return "lower_precision";
    case CastPolicy::kFp32:
      return "fp32";
    case CastPolicy::kFp32SetOptDtype:
      return "fp32_set_opt_dtype";
    case CastPolicy::kPromote:
      return "promote";
    case CastPolicy::kPassthrough:
      return "passthrough";
    case CastPolicy::kBanned:
      return "banned";
  }
  return "unknown";
}

std::vector<OpPolicy> default_op_policies(c10::DeviceType device_type) {
  detail::check_autocast_device(device_type);
  std::vector<OpPolicy> table;
  for (const auto& row : detail::default_op_table(device_type)) {
    table.push_back({row.op, row.policy});
  }
  return table;
}

std::vector<OpPolicy> op_policies(c10::DeviceType device_type) {
  detail::check_autocast_device(device_type);
  std::vector<OpPolicy> table;
  detail::for_each_active_entry(device_type, [&](detail::OpEntry& entry) {
    table.push_back({entry.name, entry.policy.load()});
  });
  return table;
}

std::optional<CastPolicy> op_policy(c10::DeviceType device_type, std::string_view op) {
  std::optional<CastPolicy> found;
  detail::for_each_active_entry(device_type, [&](detail::OpEntry& entry) {
    if (entry.name == op) {
      found = entry.policy.load();
    }
  });
  return found;
}

void set_op_policy(c10::DeviceType device_type, std::string_view op, CastPolicy policy) {
  detail::check_autocast_device(device_type);
  detail::check_op_for_policy(op, policy);
  detail::OpEntry& entry = detail::find_or_add_entry(device_type, op);
  entry.policy.store(policy);
  if (!entry.active.exchange(true)) {
    detail::install_added_op(entry);
  }
}

void reset_op_policies() {
  std::array<bool, 2> dropped{};  // CPU, CUDA
  detail::for_each_entry([&](detail::OpEntry& entry) {
    entry.policy.store(entry.default_policy);
    if (!entry.in_default_table && entry.active.exchange(false)) {
      dropped.at(entry.device_type == c10::DeviceType::CPU ? 0 : 1) = true;
    }
  });
  if (dropped[0]) {
    detail::reinstall_autocast_kernels(c10::DeviceType::CPU);
  }
  if (dropped[1]) {
    detail::reinstall_autocast_kernels(c10::DeviceType::CUDA);
  }
}

}  // namespace ampbench::amp
