// Tensor-core utilisation of a cell's profiled steps on a GPU, by two methods that each say how
// they got their number (reports::TensorCoreMetric::method): the range profiler's pipe counters,
// and the tensor-core kernels' share of kernel time from the activity API. They run one after the
// other, over their own runs of the steps, because both take hold of CUPTI.
#include <c10/core/DeviceGuard.h>

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "machine/cuda_driver.h"
#include "machine/device_hooks.h"
#include "machine/device_selection.h"
#include "profile/cupti/cupti_tensor_cores.h"
#include "profile/external_profiler.h"
#include "profile/kernel_activity.h"

namespace ampbench::harness::detail {
namespace {

reports::TensorCoreUtilization unavailable(std::string reason) {
  reports::TensorCoreUtilization tensor_cores;
  tensor_cores.reason = std::move(reason);
  return tensor_cores;
}

cupti::TensorCoreOutcome range_profiler_counters(const c10::Device& device, const ReplayedSteps& steps) {
  try {
    const RetainedPrimaryContext context(device.index());
    return cupti::profile_tensor_cores(context.get(), device.index(), steps.run_pass, steps.before_pass);
  } catch (const std::exception& error) {
    cupti::TensorCoreOutcome outcome;
    outcome.reason = error.what();
    return outcome;
  }
}

KernelActivityOutcome kernel_activity(const ReplayedSteps& steps) {
  try {
    if (steps.before_pass) steps.before_pass();  // outside the recording, like the counters' passes
  } catch (const std::exception& error) {
    return {std::nullopt, std::string("could not put the training state back before the steps: ") + error.what()};
  }
  return record_kernel_activity(steps.run_pass);
}

}  // namespace

reports::TensorCoreUtilization profile_tensor_cores(const c10::Device& requested, const ReplayedSteps& steps,
                                                    bool cupti_enabled) {
  if (!requested.is_cuda()) {
    return unavailable("CPU device: tensor cores are a GPU feature; run with " +
                       reports::flag_of(&reports::RunConfig::device) + " cuda");
  }
  if (auto skipped = cupti_skip_reason(cupti_enabled, process_environment())) return unavailable(std::move(*skipped));
  // c10's guards put the previous device back after every op, so without this the steps' final
  // synchronize and CUPTI's context would be the current device's, not necessarily the cell's.
  const c10::Device device = resolve_device(requested);
  const c10::DeviceGuard guard(device);

  reports::TensorCoreUtilization tensor_cores;
  std::vector<std::string> unavailable_parts;
  const auto counters = range_profiler_counters(device, steps);
  if (counters.measured) {
    tensor_cores.metrics = counters.metrics;
  } else {
    unavailable_parts.push_back("counters: " + counters.reason);
  }
  const auto activity = kernel_activity(steps);
  if (activity.measured) {
    tensor_cores.metrics.push_back(to_tensor_core_metric(*activity.measured));
  } else {
    unavailable_parts.push_back("kernel names: " + activity.unavailable_reason);
  }
  tensor_cores.status =
      tensor_cores.metrics.empty() ? reports::MeasurementStatus::kUnavailable : reports::MeasurementStatus::kMeasured;
  for (const auto& reason : unavailable_parts) {
    tensor_cores.reason += (tensor_cores.reason.empty() ? "" : "; ") + reason;
  }
  if (counters.measured) {
    tensor_cores.reason = "range profiler on " + counters.chip + ", " + std::to_string(counters.passes) +
                          " replay pass(es)" + (tensor_cores.reason.empty() ? "" : "; " + tensor_cores.reason);
  }
  return tensor_cores;
}

}  // namespace ampbench::harness::detail
