// What each CUPTI failure means for someone who wanted tensor-core counters. The privilege case
// carries the fix because it is the one users hit most: since driver 418.43 the counters are
// restricted to administrators by default.
#include <cupti.h>

#include <string>

#include "profile/cupti/cupti_unavailable_reason.h"

namespace ampbench::harness::cupti {
namespace {

std::string result_name(CUptiResult result) {
  const char* name = nullptr;
  if (cuptiGetResultString(result, &name) == CUPTI_SUCCESS && name != nullptr) return name;
  return "CUptiResult " + std::to_string(static_cast<long long>(result));
}

std::string meaning_of(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return "no permission to read GPU performance counters: load the nvidia driver with "
             "NVreg_RestrictProfilingToAdminUsers=0 (add 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a "
             "file in /etc/modprobe.d, then reload the driver or reboot), or run with CAP_PERFMON or CAP_SYS_ADMIN "
             "(e.g. docker run --cap-add SYS_ADMIN)";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "the hypervisor does not let this virtual GPU read performance counters (ask for a vGPU profile with "
             "profiling enabled)";
    case CUPTI_ERROR_NOT_INITIALIZED:
      return "CUPTI could not reach the CUDA driver: no NVIDIA driver is loaded or no GPU is present";
    case CUPTI_ERROR_UNKNOWN:
      return "CUPTI failed without saying why; without a loadable NVIDIA driver (libcuda.so.1) this is what it "
             "reports";
    case CUPTI_ERROR_INVALID_DEVICE:
      return "no such CUDA device";
    case CUPTI_ERROR_INVALID_CONTEXT:
      return "no valid CUDA context for the device (has CUDA been initialised on it?)";
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_NOT_SUPPORTED:
      return "unsupported chip: this CUPTI cannot profile it";
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return "the chip has no such metric";
    case CUPTI_ERROR_INVALID_PARAMETER:
      // What CUPTI 13.0's host API also answers for a metric name it does not know.
      return "CUPTI rejected an argument";
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_DISABLED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return "the performance counters are in use by another profiler (Nsight Compute or Systems, another CUPTI "
             "client in this process, or DCGM: pause its profiling with 'dcgmi profile --pause' during the run)";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return "CUPTI cannot profile a MIG instance; profile the whole GPU";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return "CUPTI cannot profile this virtual GPU";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      return "profiling is not allowed in confidential computing mode";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return "CUPTI cannot profile on this kind of device or system";
    case CUPTI_ERROR_OUT_OF_MEMORY:
      return "out of memory while setting up profiling";
    default:
      return "CUPTI call failed";
  }
}

}  // namespace

std::string reason_for(CUptiResult result, std::string_view context) {
  return meaning_of(result) + " (" + std::string(context) + ": " + result_name(result) + ")";
}

CuptiCallFailed::CuptiCallFailed(CUptiResult result, std::string_view context)
    : std::runtime_error(reason_for(result, context)), result_(result) {}

void check_cupti(CUptiResult result, std::string_view context) {
  if (result != CUPTI_SUCCESS) throw CuptiCallFailed(result, context);
}

}  // namespace ampbench::harness::cupti
