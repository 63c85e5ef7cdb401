#include "op_registry.h"

#include "op_policy_table.h"

#include <c10/util/Exception.h>

#include <deque>
#include <mutex>
#include <stdexcept>

namespace ampbench::amp::detail {
namespace {

class OpRegistry {
 public:
  OpRegistry() {
    for (const auto device : {c10::DeviceType::CPU, c10::DeviceType::CUDA}) {
      for (const auto& row : default_op_table(device)) {
        add(device, row.op, row.policy, /*from_table=*/true);
      }
    }
  }

  std::mutex& mutex() { return mutex_; }

  // Callers hold mutex().
  OpEntry* find(c10::DeviceType device, std::string_view op) {
    for (auto& entry : entries_) {
      if (entry.device_type == device && entry.name == op) {
        return &entry;
      }
    }
    return nullptr;
  }
  OpEntry& add(c10::DeviceType device, std::string_view op, CastPolicy policy, bool from_table) {
    return entries_.emplace_back(std::string(op), device, policy, from_table, entries_.size());
  }
  std::deque<OpEntry>& entries() { return entries_; }

 private:
  std::mutex mutex_;
  std::deque<OpEntry> entries_;  // a deque keeps addresses stable as entries are added
};

OpRegistry& registry() {
  static OpRegistry instance;
  return instance;
}

}  // namespace

OpEntry::OpEntry(std::string op_name, c10::DeviceType device, CastPolicy default_cast, bool from_table,
                 std::size_t dense_id)
    : name(std::move(op_name)),
      device_type(device),
      id(dense_id),
      flop_formula(flop_formula_for(name)),
      default_policy(default_cast),
      in_default_table(from_table),
      policy(default_cast),
      active(from_table) {}

void check_autocast_device(c10::DeviceType device_type) {
  if (device_type != c10::DeviceType::CPU && device_type != c10::DeviceType::CUDA) {
    throw std::invalid_argument("ampbench autocast: device type " + c10::DeviceTypeName(device_type) +
                                " is not supported (supported: CPU, CUDA)");
  }
}

void for_each_active_entry(c10::DeviceType device_type, const std::function<void(OpEntry&)>& fn) {
  const std::lock_guard lock(registry().mutex());
  for (auto& entry : registry().entries()) {
    if (entry.device_type == device_type && entry.active.load()) {
      fn(entry);
    }
  }
}

void for_each_entry(const std::function<void(OpEntry&)>& fn) {
  const std::lock_guard lock(registry().mutex());
  for (auto& entry : registry().entries()) {
    fn(entry);
  }
}

OpEntry& find_or_add_entry(c10::DeviceType device_type, std::string_view op) {
  const std::lock_guard lock(registry().mutex());
  if (OpEntry* entry = registry().find(device_type, op)) {
    return *entry;
  }
  return registry().add(device_type, op, CastPolicy::kPassthrough, /*from_table=*/false);
}

std::pair<const std::string&, c10::DeviceType> entry_identity(std::size_t id) {
  const std::lock_guard lock(registry().mutex());
  const OpEntry& entry = registry().entries().at(id);
  return {entry.name, entry.device_type};
}

std::pair<std::string, std::string> split_op_name(std::string_view op) {
  const auto dot = op.find('.');
  if (dot == std::string_view::npos) {
    return {std::string(op), std::string()};
  }
  return {std::string(op.substr(0, dot)), std::string(op.substr(dot + 1))};
}

}  // namespace ampbench::amp::detail
