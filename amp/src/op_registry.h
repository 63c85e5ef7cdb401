// The op entries ampbench's autocast kernels serve: one per (device type, op), created from the
// default tables or by set_op_policy, never destroyed, so kernels and counters may keep pointers
// and ids. Private to ampbench::amp.
#pragma once

#include "ampbench/amp/op_policy.h"
#include "flops.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace ampbench::amp::detail {

struct OpEntry {
  OpEntry(std::string op_name, c10::DeviceType device, CastPolicy default_cast, bool from_table, std::size_t dense_id);

  const std::string name;  // "conv2d.padding"
  const c10::DeviceType device_type;
  const std::size_t id;  // dense over all entries; indexes the per-thread counters
  const FlopFormula flop_formula;
  const CastPolicy default_policy;
  const bool in_default_table;
  std::atomic<CastPolicy> policy;
  // An entry set_op_policy added and reset_op_policies dropped stays, inactive: not registered.
  std::atomic<bool> active;
};

// Throws std::invalid_argument unless device_type is CPU or CUDA.
void check_autocast_device(c10::DeviceType device_type);

// Calls fn on each active entry of a device type, in table order, under the registry's lock.
void for_each_active_entry(c10::DeviceType device_type, const std::function<void(OpEntry&)>& fn);

// Calls fn on every entry, active or not, under the registry's lock.
void for_each_entry(const std::function<void(OpEntry&)>& fn);

// The entry for (device type, op), created inactive if absent; nullptr-free.
[[nodiscard]] OpEntry& find_or_add_entry(c10::DeviceType device_type, std::string_view op);

// The name and device type of the entry with this id.
[[nodiscard]] std::pair<const std::string&, c10::DeviceType> entry_identity(std::size_t id);

// Splits "name.overload" into its parts ("name", "overload"); the overload may be empty.
[[nodiscard]] std::pair<std::string, std::string> split_op_name(std::string_view op);

}  // namespace ampbench::amp::detail
