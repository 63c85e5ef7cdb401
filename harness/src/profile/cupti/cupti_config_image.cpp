// Builds a range-profiler config image with CUPTI's host API.
#include <cupti_profiler_host.h>

#include <stdexcept>

#include "profile/cupti/cupti_config_image.h"
#include "profile/cupti/cupti_host_object.h"
#include "profile/cupti/cupti_unavailable_reason.h"

namespace ampbench::harness::cupti {
namespace {

CUptiResult add_metrics(const detail::HostObject& host, std::vector<const char*> names) {
  CUpti_Profiler_Host_ConfigAddMetrics_Params params{};
  params.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
  params.pHostObject = host.get();
  params.ppMetricNames = names.data();
  params.numMetrics = names.size();
  return cuptiProfilerHostConfigAddMetrics(&params);
}

// CUPTI refuses a list without saying which name it refused, so try each name on a fresh host
// object to find it. (Adding the names one by one to the real object is no way round this: CUPTI
// then schedules each separately, 6 passes instead of 2 for six GA100 metrics.)
[[noreturn]] void throw_for_refused_metric(const detail::HostObject& host, const std::vector<std::string>& names,
                                           CUptiResult list_result) {
  for (const auto& name : names) {
    const detail::HostObject probe(host.chip(), host.counter_availability());
    const CUptiResult result = add_metrics(probe, {name.c_str()});
    if (result != CUPTI_SUCCESS) {
      throw CuptiCallFailed(
          result, "cuptiProfilerHostConfigAddMetrics refused metric '" + name + "' on chip '" + host.chip() + "'");
    }
  }
  throw CuptiCallFailed(list_result, "cuptiProfilerHostConfigAddMetrics for " + std::to_string(names.size()) +
                                         " metrics on chip '" + host.chip() + "', each accepted alone");
}

std::vector<std::uint8_t> config_image_of(const detail::HostObject& host) {
  const std::string where = " on chip '" + host.chip() + "'";
  CUpti_Profiler_Host_GetConfigImageSize_Params size{};
  size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
  size.pHostObject = host.get();
  check_cupti(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize" + where);

  std::vector<std::uint8_t> bytes(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params image{};
  image.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
  image.pHostObject = host.get();
  image.configImageSize = bytes.size();
  image.pConfigImage = bytes.data();
  check_cupti(cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage" + where);
  return bytes;
}

int passes_of(std::vector<std::uint8_t>& bytes, const std::string& chip) {
  CUpti_Profiler_Host_GetNumOfPasses_Params params{};
  params.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
  params.configImageSize = bytes.size();
  params.pConfigImage = bytes.data();
  check_cupti(cuptiProfilerHostGetNumOfPasses(&params), "cuptiProfilerHostGetNumOfPasses on chip '" + chip + "'");
  return static_cast<int>(params.numOfPasses);
}

}  // namespace

namespace detail {

ConfigImage build_config_image(const HostObject& host, const std::vector<std::string>& metric_names) {
  if (metric_names.empty()) {
    throw std::invalid_argument("build_config_image: no metrics to schedule for chip '" + host.chip() + "'");
  }
  const CUptiResult added = add_metrics(host, c_strings(metric_names));
  if (added != CUPTI_SUCCESS) throw_for_refused_metric(host, metric_names, added);
  ConfigImage config;
  config.bytes = config_image_of(host);
  config.passes = passes_of(config.bytes, host.chip());
  return config;
}

}  // namespace detail

ConfigImage build_config_image(std::string_view chip, const std::vector<std::string>& metric_names) {
  return detail::build_config_image(detail::HostObject(chip), metric_names);
}

}  // namespace ampbench::harness::cupti
