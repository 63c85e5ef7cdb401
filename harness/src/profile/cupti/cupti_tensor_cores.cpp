// profile_tensor_cores: the chip's metric set, its config image, one range-profiler session, the
// values. Each step that can fail throws; the one catch at the end turns it into the reason.
#include "profile/cupti/cupti_tensor_cores.h"

#include <stdexcept>
#include <utility>

#include "profile/cupti/cupti_config_image.h"
#include "profile/cupti/cupti_host_object.h"
#include "profile/cupti/cupti_metric_sets.h"
#include "profile/cupti/cupti_metric_values.h"
#include "profile/cupti/cupti_range_profiler_session.h"

namespace ampbench::harness::cupti {
namespace {

// The order of NVIDIA's range_profiling sample: chip, counter availability, one host object for
// the config image and the evaluation, then the session on the device's context.
void measure(CUcontext context, int device_index, const std::function<void()>& run_profiled_steps,
             const std::function<void()>& before_each_pass, TensorCoreOutcome& outcome) {
  if (!run_profiled_steps) throw std::invalid_argument("profile_tensor_cores: no profiled steps to run");
  const detail::ProfilerInterface profiler;
  outcome.chip = detail::chip_of_device(profiler, device_index);
  const std::vector<MetricRequest> requests = tensor_core_metric_set(outcome.chip);
  const std::vector<std::string> names = metric_names(requests);
  const detail::HostObject host(outcome.chip, detail::counter_availability_image(profiler, context, device_index));
  const ConfigImage config = detail::build_config_image(host, names);

  detail::RangeProfilerSession session(context, device_index);
  session.configure(config, names);
  session.replay_all_passes(
      [&] {
        ++outcome.passes;
        run_profiled_steps();
      },
      before_each_pass);
  CounterMetrics values = tensor_core_metrics_from(requests, detail::evaluate_range(host, session.decode(), names));
  if (!values.unavailable_reason.empty()) throw std::runtime_error(values.unavailable_reason);
  outcome.metrics = std::move(values.metrics);
  outcome.measured = true;
}

}  // namespace

TensorCoreOutcome profile_tensor_cores(CUcontext context, int device_index,
                                       const std::function<void()>& run_profiled_steps,
                                       const std::function<void()>& before_each_pass) noexcept {
  TensorCoreOutcome outcome;
  try {
    measure(context, device_index, run_profiled_steps, before_each_pass, outcome);
  } catch (const std::exception& error) {
    outcome.reason = error.what();
  } catch (...) {
    outcome.reason = "tensor-core profiling failed with an exception that is not a std::exception";
  }
  return outcome;
}

}  // namespace ampbench::harness::cupti
