// The GPU side of tensor-core profiling: CUPTI's profiler interface, the chip of a device, and a
// range-profiler session on one CUDA context with one user range and user replay. Every failure
// throws (CuptiCallFailed for CUPTI's own); profile_tensor_cores turns that into an outcome.
#pragma once

#include <cuda.h>
#include <cupti_range_profiler.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profile/cupti/cupti_config_image.h"

namespace ampbench::harness::cupti::detail {

// cuptiProfilerInitialize for as long as it lives. Nothing else of the target API may be called
// unless this succeeded: without a driver, cuptiDeviceGetChipName then dereferences null.
class ProfilerInterface {
 public:
  ProfilerInterface();
  ~ProfilerInterface();
  ProfilerInterface(const ProfilerInterface&) = delete;
  ProfilerInterface& operator=(const ProfilerInterface&) = delete;
};

// The chip of CUDA device `device_index` as CUPTI names it ("GA100"); needs a ProfilerInterface.
[[nodiscard]] std::string chip_of_device(const ProfilerInterface& profiler, int device_index);

// Which counters `context` can give now (cuptiProfilerGetCounterAvailability), to build the host
// object with before the range profiler is enabled. Fails while another profiling session (another
// tool, DCGM) holds the device's counters. Throws for a null context.
[[nodiscard]] std::vector<std::uint8_t> counter_availability_image(const ProfilerInterface& profiler, CUcontext context,
                                                                   int device_index);

class HostObject;

class RangeProfilerSession {
 public:
  // Enables the range profiler on `context`; this is where missing counter permissions show.
  RangeProfilerSession(CUcontext context, int device_index);
  ~RangeProfilerSession();
  RangeProfilerSession(const RangeProfilerSession&) = delete;
  RangeProfilerSession& operator=(const RangeProfilerSession&) = delete;

  // One user range, replayed by the caller, counter data sized for `metric_names`.
  void configure(const ConfigImage& config, const std::vector<std::string>& metric_names);
  // Runs `steps` inside the user range once per pass until CUPTI has submitted every pass of
  // the config image's schedule; `before_pass` (if set) runs before each pass, outside the range,
  // so what it does to put the workload's state back is not counted.
  void replay_all_passes(const std::function<void()>& steps, const std::function<void()>& before_pass);
  // Decodes the collected passes; returns the counter data image holding the one range.
  [[nodiscard]] const std::vector<std::uint8_t>& decode();

 private:
  // Starts the profiler, runs `steps` in the range, stops; returns whether all passes are in.
  bool run_pass(const std::function<void()>& steps, const std::function<void()>& before_pass, int pass);
  [[nodiscard]] CUptiResult pop_range();
  [[nodiscard]] CUptiResult stop(bool& all_passes_submitted);
  void pop_range_and_stop_after_failure();

  CUpti_RangeProfiler_Object* object_ = nullptr;
  std::string device_text_;  // "device N", for error messages
  ConfigImage config_;       // CUPTI reads it during the passes, so it lives as long as the session
  std::vector<std::uint8_t> counter_data_;
};

// The value of each metric in range 0 of decoded `counter_data`, in the order of `metric_names`,
// evaluated by the host object that built the session's config image.
[[nodiscard]] std::vector<double> evaluate_range(const HostObject& host, const std::vector<std::uint8_t>& counter_data,
                                                 const std::vector<std::string>& metric_names);

}  // namespace ampbench::harness::cupti::detail
