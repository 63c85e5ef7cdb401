// The few CUDA driver calls ampbench makes itself, through the driver LibTorch has already loaded
// into the process (dlopen with RTLD_NOLOAD, then dlsym): ampbench links neither libcuda nor a
// CUDA runtime of its own (docs/building.md, "Which CUDA libraries"). LibTorch's own driver table
// (c10/cuda/driver_api.h) needs nvml.h, which neither toolkit 13.0 nor the wheel ships.
#pragma once

#include <cuda.h>  // types and enums only

#include <optional>

namespace ampbench::harness::detail {

// The primary context of a CUDA device, retained for as long as this object lives. It is the
// context LibTorch's runtime launches that device's work in, whichever context is current on the
// thread, so CUPTI profiles the device the cell runs on.
class RetainedPrimaryContext {
 public:
  // Throws std::runtime_error naming the driver call that failed (or the driver not being loaded).
  explicit RetainedPrimaryContext(int device_index);
  ~RetainedPrimaryContext();
  RetainedPrimaryContext(const RetainedPrimaryContext&) = delete;
  RetainedPrimaryContext& operator=(const RetainedPrimaryContext&) = delete;

  [[nodiscard]] CUcontext get() const { return context_; }

 private:
  void* driver_ = nullptr;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

// CU_DEVICE_ATTRIBUTE_COMPUTE_MODE of a device (a CUcomputemode value), or nullopt when the driver
// is not loaded or does not answer.
[[nodiscard]] std::optional<int> device_compute_mode(int device_index);

}  // namespace ampbench::harness::detail
