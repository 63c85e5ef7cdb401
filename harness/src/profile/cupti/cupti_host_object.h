// CUPTI's profiler host object for one chip, released when it goes out of scope. The host side
// needs no GPU: it schedules metrics into config images and evaluates decoded counter data. As in
// NVIDIA's range_profiling sample, one object serves both, and on a GPU it is built with the
// device's counter-availability image, so CUPTI schedules only counters the device can give now.
#pragma once

#include <cupti_profiler_host.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profile/cupti/cupti_config_image.h"

namespace ampbench::harness::cupti::detail {

class HostObject {
 public:
  // Throws CuptiCallFailed naming the chip when CUPTI does not know it. An empty
  // `counter_availability` means none is known (host-only use, e.g. the tests).
  explicit HostObject(std::string_view chip, std::vector<std::uint8_t> counter_availability = {});
  ~HostObject();
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;

  [[nodiscard]] CUpti_Profiler_Host_Object* get() const { return object_; }
  [[nodiscard]] const std::string& chip() const { return chip_; }
  [[nodiscard]] const std::vector<std::uint8_t>& counter_availability() const { return counter_availability_; }

 private:
  std::string chip_;
  std::vector<std::uint8_t> counter_availability_;  // CUPTI may read it for as long as the object lives
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// Schedules `metric_names` on `host` (cupti_config_image.cpp); build_config_image(chip, ...) is this
// on a fresh host object. Throws CuptiCallFailed naming the chip and the refused metric.
[[nodiscard]] ConfigImage build_config_image(const HostObject& host, const std::vector<std::string>& metric_names);

// The names as the C API wants them; the strings must outlive the result.
[[nodiscard]] std::vector<const char*> c_strings(const std::vector<std::string>& names);

}  // namespace ampbench::harness::cupti::detail
