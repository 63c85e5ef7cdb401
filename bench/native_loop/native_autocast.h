// LibTorch's own autocast switched on directly, the way Python's torch.autocast does, with nothing
// of ampbench's in it: the reference ampbench's scope is held to (autocast_conformance_test,
// autocast_overhead_benchmark) and the independent loop validity.py sets ampbench's figures
// against (bare_loop_cell). On exit the device's autocast dtype is what it was before.
#pragma once

#include <ATen/autocast_mode.h>

namespace ampbench::bench {

class NativeAutocast {
 public:
  NativeAutocast(c10::DeviceType device, at::ScalarType dtype)
      : device_(device), previous_dtype_(at::autocast::get_autocast_dtype(device)) {
    at::autocast::set_autocast_enabled(device_, true);
    at::autocast::set_autocast_dtype(device_, dtype);
    at::autocast::increment_nesting();
  }
  ~NativeAutocast() {
    at::autocast::set_autocast_enabled(device_, false);
    at::autocast::set_autocast_dtype(device_, previous_dtype_);
    if (at::autocast::decrement_nesting() == 0) {
      at::autocast::clear_cache();
    }
  }
  NativeAutocast(const NativeAutocast&) = delete;
  NativeAutocast& operator=(const NativeAutocast&) = delete;

 private:
  c10::DeviceType device_;
  at::ScalarType previous_dtype_;
};

}  // namespace ampbench::bench
