#include "profile/cupti/cupti_host_object.h"

#include <utility>

#include "profile/cupti/cupti_unavailable_reason.h"

namespace ampbench::harness::cupti::detail {

HostObject::HostObject(std::string_view chip, std::vector<std::uint8_t> counter_availability)
    : chip_(chip), counter_availability_(std::move(counter_availability)) {
  CUpti_Profiler_Host_Initialize_Params params{};
  params.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  params.pChipName = chip_.c_str();
  params.pCounterAvailabilityImage = counter_availability_.empty() ? nullptr : counter_availability_.data();
  check_cupti(cuptiProfilerHostInitialize(&params), "cuptiProfilerHostInitialize for chip '" + chip_ + "'");
  object_ = params.pHostObject;
}

HostObject::~HostObject() {
  CUpti_Profiler_Host_Deinitialize_Params params{};
  params.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
  params.pHostObject = object_;
  // Nothing to do about a failed release in a destructor; the object is gone either way.
  static_cast<void>(cuptiProfilerHostDeinitialize(&params));
}

std::vector<const char*> c_strings(const std::vector<std::string>& names) {
  std::vector<const char*> pointers;
  pointers.reserve(names.size());
  for (const auto& name : names) pointers.push_back(name.c_str());
  return pointers;
}

}  // namespace ampbench::harness::cupti::detail
