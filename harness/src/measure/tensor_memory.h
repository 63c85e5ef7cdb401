// Internal: live and peak tensor bytes on the device a run uses, the same way on the CPU (ampbench's
// counting allocator) and on CUDA (the caching allocator's statistics), and the per-mode ledger
// that gives each mode its own peak while the modes of a workload share one process.
#pragma once

#include <c10/core/CachingDeviceAllocator.h>
#include <c10/core/Device.h>

#include <cstdint>

namespace ampbench::harness::detail {

// LibTorch's CUDA caching allocator, with CUDA initialised first: until something has initialised
// CUDA in this process (Python's torch.cuda calls _lazy_init() for the same reason), the allocator
// knows no device, and its statistics, peak resets and cache release all throw "Invalid device
// argument" (seen on an H200 with torch 2.11: every cell failed before its first tensor).
[[nodiscard]] c10::DeviceAllocator& cuda_caching_allocator();

class TensorMemoryProbe {
 public:
  explicit TensorMemoryProbe(c10::Device device);
  [[nodiscard]] std::int64_t live_bytes() const;
  [[nodiscard]] std::int64_t peak_bytes() const;  // since the last reset_peak()
  void reset_peak();

 private:
  c10::Device device_;
};

// A mode's peak as if it ran alone: what it keeps between its steps (weights, gradients if kept,
// optimizer and scaler state, its batches) plus the most one of its steps adds on top, or its
// set-up peak if that is higher. Other modes' tensors are live meanwhile but never counted, since
// every figure is a difference taken around this mode's own work. Deterministic for a given
// workload and mode: it does not depend on how many steps ran or on what the other modes did.
class ModeMemoryLedger {
 public:
  void begin(TensorMemoryProbe& probe);  // before set-up or a step
  void end(TensorMemoryProbe& probe);    // after it: the bytes it kept are this mode's from now on
  [[nodiscard]] std::int64_t peak_bytes() const { return peak_; }
  [[nodiscard]] std::int64_t kept_bytes() const { return kept_; }

 private:
  std::int64_t kept_ = 0;
  std::int64_t peak_ = 0;
  std::int64_t live_at_begin_ = 0;
};

}  // namespace ampbench::harness::detail
