// Tensor-core utilisation of a cell's profiled steps on a GPU, by two methods that each say how
// they got their number (reports::TensorCoreMetric::method): the range profiler's pipe counters,
// and the tensor-core kernels' share of kernel time from the activity API. They run one after the
// other, over their own runs of the steps, because both take hold of CUPTI.
#include <cuda.h>  // types only
#include <dlfcn.h>

#include "../device_hooks.h"
#include "ampbench/harness/cupti_tensor_cores.h"
#include "ampbench/harness/kernel_activity.h"

namespace ampbench::harness::detail {
namespace {

constexpr const char* kCpuReason = "CPU device: tensor cores are a GPU feature; run with --device cuda";

// The device's current CUDA context (LibTorch made it current when it ran the steps), looked up
// in the driver the process has already loaded, so ampbench does not link libcuda. (LibTorch's own
// driver table, c10/cuda/driver_api.h, needs nvml.h, which neither toolkit 13.0 nor the wheel ships.)
CUcontext current_context() {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (driver == nullptr) return nullptr;
  using GetCurrent = CUresult (*)(CUcontext*);
  const auto get_current = reinterpret_cast<GetCurrent>(dlsym(driver, "cuCtxGetCurrent"));
  CUcontext context = nullptr;
  if (get_current == nullptr || get_current(&context) != CUDA_SUCCESS) context = nullptr;
  dlclose(driver);  // drops only the reference RTLD_NOLOAD took
  return context;
}

}  // namespace

reports::TensorCoreUtilization profile_tensor_cores(const c10::Device& device,
                                                    const std::function<void()>& run_profiled_steps) {
  reports::TensorCoreUtilization tensor_cores;
  if (!device.is_cuda()) {
    tensor_cores.reason = kCpuReason;
    return tensor_cores;
  }
  std::vector<std::string> unavailable;
  const auto counters = cupti::profile_tensor_cores(current_context(), device.index(), run_profiled_steps);
  if (counters.measured) {
    tensor_cores.metrics = counters.metrics;
  } else {
    unavailable.push_back("counters: " + counters.reason);
  }
  const auto activity = record_kernel_activity(run_profiled_steps);
  if (activity.measured) {
    tensor_cores.metrics.push_back(to_tensor_core_metric(*activity.measured));
  } else {
    unavailable.push_back("kernel names: " + activity.unavailable_reason);
  }
  tensor_cores.status = tensor_cores.metrics.empty() ? "unavailable" : "measured";
  for (const auto& reason : unavailable) {
    tensor_cores.reason += (tensor_cores.reason.empty() ? "" : "; ") + reason;
  }
  if (counters.measured) {
    tensor_cores.reason = "range profiler on " + counters.chip + ", " + std::to_string(counters.passes) +
                          " replay pass(es)" + (tensor_cores.reason.empty() ? "" : "; " + tensor_cores.reason);
  }
  return tensor_cores;
}

}  // namespace ampbench::harness::detail
