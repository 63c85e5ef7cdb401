// profile_tensor_cores: the chip's metric set, its config image, one range-profiler session, the
// values. Each step that can fail throws; the one catch at the end turns it into the reason.
#include "ampbench/harness/cupti_tensor_cores.h"

#include <stdexcept>

#include "ampbench/harness/cupti/config_image.h"
#include "ampbench/harness/cupti/metric_sets.h"
#include "cupti_range_profiler_session.h"

namespace ampbench::harness::cupti {
namespace {

std::vector<reports::TensorCoreMetric> metrics_from(const std::vector<MetricRequest>& requests,
                                                    const std::vector<double>& values) {
  std::vector<reports::TensorCoreMetric> metrics;
  for (size_t i = 0; i < requests.size(); ++i) {
    metrics.push_back({requests[i].name, values[i], requests[i].unit, "cupti-range-profiler"});
  }
  return metrics;
}

void measure(CUcontext context, int device_index, const std::function<void()>& run_profiled_steps,
             TensorCoreOutcome& outcome) {
  if (!run_profiled_steps) throw std::invalid_argument("profile_tensor_cores: no profiled steps to run");
  const detail::ProfilerInterface profiler;
  outcome.chip = detail::chip_of_device(profiler, device_index);
  const std::vector<MetricRequest> requests = tensor_core_metric_set(outcome.chip);
  const std::vector<std::string> names = metric_names(requests);
  const ConfigImage config = build_config_image(outcome.chip, names);

  detail::RangeProfilerSession session(context, device_index);
  session.configure(config, names);
  session.replay_all_passes([&] {
    ++outcome.passes;
    run_profiled_steps();
  });
  outcome.metrics = metrics_from(requests, detail::evaluate_range(outcome.chip, session.decode(), names));
  outcome.measured = true;
}

}  // namespace

TensorCoreOutcome profile_tensor_cores(CUcontext context, int device_index,
                                       const std::function<void()>& run_profiled_steps) noexcept {
  TensorCoreOutcome outcome;
  try {
    measure(context, device_index, run_profiled_steps, outcome);
  } catch (const std::exception& error) {
    outcome.reason = error.what();
  } catch (...) {
    outcome.reason = "tensor-core profiling failed with an exception that is not a std::exception";
  }
  return outcome;
}

}  // namespace ampbench::harness::cupti
