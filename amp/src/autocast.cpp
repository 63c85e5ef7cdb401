#include "ampbench/amp/autocast.h"

#include "autocast_kernels.h"
#include "op_registry.h"
#include "thread_state.h"

#include <stdexcept>
#include <string>

namespace ampbench::amp {
namespace {

void check_autocast_dtype(c10::DeviceType device_type, c10::ScalarType dtype) {
  const std::string where =
      "ampbench autocast on " + c10::DeviceTypeName(device_type) + ": dtype " + std::string(c10::toString(dtype));
  if (!c10::isFloatingType(dtype)) {
    throw std::invalid_argument(where + " is not a floating-point type; use BFloat16 or Half");
  }
  if (dtype != c10::ScalarType::BFloat16 && dtype != c10::ScalarType::Half) {
    throw std::invalid_argument(where + " is not a lower-precision type autocast supports; use BFloat16 or Half");
  }
}

}  // namespace

Autocast::Autocast(c10::DeviceType device_type, c10::ScalarType dtype) : device_type_(device_type) {
  detail::check_autocast_device(device_type);
  check_autocast_dtype(device_type, dtype);
  detail::install_autocast_kernels(device_type);
  const auto previous = detail::read_switches(device_type);
  previous_enabled_ = previous.enabled;
  previous_dtype_ = previous.dtype;
  detail::write_switches(device_type, {true, dtype});
  detail::enter_autocast_nesting();
}

Autocast::Autocast(c10::DeviceType device_type, DisabledTag /*tag*/) : device_type_(device_type) {
  detail::check_autocast_device(device_type);
  const auto previous = detail::read_switches(device_type);
  previous_enabled_ = previous.enabled;
  previous_dtype_ = previous.dtype;
  detail::write_switches(device_type, {false, previous.dtype});
  detail::enter_autocast_nesting();
}

Autocast Autocast::disabled(c10::DeviceType device_type) { return Autocast(device_type, DisabledTag{}); }

Autocast::~Autocast() {
  detail::write_switches(device_type_, {previous_enabled_, previous_dtype_});
  detail::leave_autocast_nesting();
}

}  // namespace ampbench::amp
