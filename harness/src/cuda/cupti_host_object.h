// CUPTI's profiler host object for one chip, released when it goes out of scope. The host side
// needs no GPU: it schedules metrics into config images and evaluates decoded counter data.
#pragma once

#include <cupti_profiler_host.h>

#include <string>
#include <string_view>
#include <vector>

namespace ampbench::harness::cupti::detail {

class HostObject {
 public:
  // Throws CuptiCallFailed naming the chip when CUPTI does not know it.
  explicit HostObject(std::string_view chip);
  ~HostObject();
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;

  [[nodiscard]] CUpti_Profiler_Host_Object* get() const { return object_; }
  [[nodiscard]] const std::string& chip() const { return chip_; }

 private:
  std::string chip_;
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// The names as the C API wants them; the strings must outlive the result.
[[nodiscard]] std::vector<const char*> c_strings(const std::vector<std::string>& names);

}  // namespace ampbench::harness::cupti::detail
