#include "profile/cupti/cupti_range_profiler_session.h"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <stdexcept>

#include "profile/cupti/cupti_host_object.h"
#include "profile/cupti/cupti_unavailable_reason.h"

namespace ampbench::harness::cupti::detail {
namespace {

// The one range every profiled step runs in; its name is what CUPTI records for it.
constexpr const char* kRangeName = "ampbench profiled steps";

// CUPTI would take a null context as "the current one"; ampbench always names the device's own.
void require_context(CUcontext context, const std::string& device_text) {
  if (context == nullptr) {
    throw std::invalid_argument("no CUDA context for " + device_text + " to profile (CUDA not initialised on it?)");
  }
}

}  // namespace

ProfilerInterface::ProfilerInterface() {
  CUpti_Profiler_Initialize_Params params{};
  params.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
  check_cupti(cuptiProfilerInitialize(&params), "cuptiProfilerInitialize");
}

ProfilerInterface::~ProfilerInterface() {
  CUpti_Profiler_DeInitialize_Params params{};
  params.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
  static_cast<void>(cuptiProfilerDeInitialize(&params));  // nothing to do about it in a destructor
}

std::string chip_of_device(const ProfilerInterface& /*profiler: proof of initialisation*/, int device_index) {
  if (device_index < 0) throw std::invalid_argument("no CUDA device " + std::to_string(device_index));
  CUpti_Device_GetChipName_Params params{};
  params.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  params.deviceIndex = static_cast<size_t>(device_index);
  check_cupti(cuptiDeviceGetChipName(&params), "cuptiDeviceGetChipName for device " + std::to_string(device_index));
  return params.pChipName;
}

std::vector<std::uint8_t> counter_availability_image(const ProfilerInterface& /*profiler*/, CUcontext context,
                                                     int device_index) {
  const std::string device_text = "device " + std::to_string(device_index);
  require_context(context, device_text);
  const std::string where = "cuptiProfilerGetCounterAvailability on " + device_text;
  CUpti_Profiler_GetCounterAvailability_Params params{};
  params.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
  params.ctx = context;
  check_cupti(cuptiProfilerGetCounterAvailability(&params), where + " (size)");
  std::vector<std::uint8_t> image(params.counterAvailabilityImageSize);
  params.pCounterAvailabilityImage = image.data();
  check_cupti(cuptiProfilerGetCounterAvailability(&params), where);
  image.resize(params.counterAvailabilityImageSize);
  return image;
}

RangeProfilerSession::RangeProfilerSession(CUcontext context, int device_index)
    : device_text_("device " + std::to_string(device_index)) {
  require_context(context, device_text_);
  CUpti_RangeProfiler_Enable_Params params{};
  params.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
  params.ctx = context;
  check_cupti(cuptiRangeProfilerEnable(&params), "cuptiRangeProfilerEnable on " + device_text_);
  object_ = params.pRangeProfilerObject;
}

RangeProfilerSession::~RangeProfilerSession() {
  CUpti_RangeProfiler_Disable_Params params{};
  params.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
  params.pRangeProfilerObject = object_;
  static_cast<void>(cuptiRangeProfilerDisable(&params));  // nothing to do about it in a destructor
}

void RangeProfilerSession::configure(const ConfigImage& config, const std::vector<std::string>& metric_names) {
  config_ = config;
  std::vector<const char*> names = c_strings(metric_names);
  CUpti_RangeProfiler_GetCounterDataSize_Params size{};
  size.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
  size.pRangeProfilerObject = object_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = 1;
  size.maxNumRangeTreeNodes = 1;
  check_cupti(cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize on " + device_text_);

  counter_data_.assign(size.counterDataSize, 0);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params image{};
  image.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
  image.pRangeProfilerObject = object_;
  image.counterDataSize = counter_data_.size();
  image.pCounterData = counter_data_.data();
  check_cupti(cuptiRangeProfilerCounterDataImageInitialize(&image),
              "cuptiRangeProfilerCounterDataImageInitialize on " + device_text_);

  CUpti_RangeProfiler_SetConfig_Params params{};
  params.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
  params.pRangeProfilerObject = object_;
  params.configSize = config_.bytes.size();
  params.pConfig = config_.bytes.data();
  params.counterDataImageSize = counter_data_.size();
  params.pCounterDataImage = counter_data_.data();
  params.range = CUPTI_UserRange;
  params.replayMode = CUPTI_UserReplay;
  params.maxRangesPerPass = 1;
  params.numNestingLevels = 1;
  params.minNestingLevel = 1;
  // In-process replay starts at pass 0 on the lowest profiled level (cupti_profiler_target.h).
  params.passIndex = 0;
  params.targetNestingLevel = 1;
  check_cupti(cuptiRangeProfilerSetConfig(&params), "cuptiRangeProfilerSetConfig on " + device_text_);
}

void RangeProfilerSession::replay_all_passes(const std::function<void()>& steps,
                                             const std::function<void()>& before_pass) {
  // CUPTI says when it has every pass; the config image says how many that should be, which
  // bounds the loop should CUPTI never say so.
  for (int pass = 1; pass <= config_.passes; ++pass) {
    if (run_pass(steps, before_pass, pass)) return;
  }
  throw std::runtime_error("CUPTI still wanted passes after the " + std::to_string(config_.passes) +
                           " its config image scheduled, on " + device_text_);
}

bool RangeProfilerSession::run_pass(const std::function<void()>& steps, const std::function<void()>& before_pass,
                                    int pass) {
  if (before_pass) before_pass();
  CUpti_RangeProfiler_Start_Params start{};
  start.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
  start.pRangeProfilerObject = object_;
  check_cupti(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart on " + device_text_);

  CUpti_RangeProfiler_PushRange_Params push{};
  push.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
  push.pRangeProfilerObject = object_;
  push.pRangeName = kRangeName;
  check_cupti(cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange on " + device_text_);
  try {
    steps();
  } catch (const std::exception& error) {
    pop_range_and_stop_after_failure();
    throw std::runtime_error("the profiled steps failed in replay pass " + std::to_string(pass) + ": " + error.what());
  } catch (...) {
    pop_range_and_stop_after_failure();
    throw std::runtime_error("the profiled steps failed in replay pass " + std::to_string(pass));
  }

  check_cupti(pop_range(), "cuptiRangeProfilerPopRange on " + device_text_);
  bool all_passes_submitted = false;
  check_cupti(stop(all_passes_submitted), "cuptiRangeProfilerStop on " + device_text_);
  return all_passes_submitted;
}

CUptiResult RangeProfilerSession::pop_range() {
  CUpti_RangeProfiler_PopRange_Params params{};
  params.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
  params.pRangeProfilerObject = object_;
  return cuptiRangeProfilerPopRange(&params);
}

CUptiResult RangeProfilerSession::stop(bool& all_passes_submitted) {
  CUpti_RangeProfiler_Stop_Params params{};
  params.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
  params.pRangeProfilerObject = object_;
  const CUptiResult result = cuptiRangeProfilerStop(&params);
  all_passes_submitted = params.isAllPassSubmitted != 0;
  return result;
}

void RangeProfilerSession::pop_range_and_stop_after_failure() {
  // Best effort: the steps' own error is the one worth reporting, and Disable cleans up the rest.
  static_cast<void>(pop_range());
  bool all_passes_submitted = false;
  static_cast<void>(stop(all_passes_submitted));
}

const std::vector<std::uint8_t>& RangeProfilerSession::decode() {
  CUpti_RangeProfiler_DecodeData_Params params{};
  params.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
  params.pRangeProfilerObject = object_;
  check_cupti(cuptiRangeProfilerDecodeData(&params), "cuptiRangeProfilerDecodeData on " + device_text_);
  if (params.numOfRangeDropped != 0) {
    throw std::runtime_error("CUPTI dropped the profiled range on " + device_text_);
  }

  CUpti_RangeProfiler_GetCounterDataInfo_Params info{};
  info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
  info.pCounterDataImage = counter_data_.data();
  info.counterDataImageSize = counter_data_.size();
  check_cupti(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo on " + device_text_);
  if (info.numTotalRanges != 1) {
    throw std::runtime_error("expected the one profiled range in CUPTI's counter data, found " +
                             std::to_string(info.numTotalRanges) + " on " + device_text_);
  }
  return counter_data_;
}

std::vector<double> evaluate_range(const HostObject& host, const std::vector<std::uint8_t>& counter_data,
                                   const std::vector<std::string>& metric_names) {
  std::vector<const char*> names = c_strings(metric_names);
  std::vector<double> values(names.size());
  CUpti_Profiler_Host_EvaluateToGpuValues_Params params{};
  params.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
  params.pHostObject = host.get();
  params.pCounterDataImage = counter_data.data();
  params.counterDataImageSize = counter_data.size();
  params.rangeIndex = 0;
  params.ppMetricNames = names.data();
  params.numMetrics = names.size();
  params.pMetricValues = values.data();
  check_cupti(cuptiProfilerHostEvaluateToGpuValues(&params),
              "cuptiProfilerHostEvaluateToGpuValues on chip '" + host.chip() + "'");
  return values;
}

}  // namespace ampbench::harness::cupti::detail
