// Internal: per-step GPU time from a pair of events around each step on the device's current
// stream. Recording an event does not wait for the device, so the timed loop never synchronises
// beyond what the step itself does; times are read for steps the device has finished (a
// non-blocking query) while the loop runs, and for all of them at the end.
// Built on c10::Event, LibTorch's backend-neutral event (CUDA events behind it on a CUDA
// device), so ampbench itself does not call the CUDA runtime.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/Event.h>

#include <vector>

namespace ampbench::harness::detail {

class DeviceStepTimer {
 public:
  explicit DeviceStepTimer(const c10::Device& device);

  void start_step();
  void end_step();
  // Seconds of the leading steps whose end event the device has reached; never waits. Grows
  // monotonically from call to call.
  [[nodiscard]] const std::vector<double>& finished_step_seconds();
  // Waits for the device to reach the last end event; then seconds of every step.
  [[nodiscard]] const std::vector<double>& all_step_seconds();

 private:
  c10::Device device_;
  std::vector<c10::Event> starts_;
  std::vector<c10::Event> ends_;
  std::vector<double> seconds_;
};

}  // namespace ampbench::harness::detail
