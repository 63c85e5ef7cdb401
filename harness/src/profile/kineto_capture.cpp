// profile_time_breakdown (time_breakdown.h): the profiled steps under LibTorch's profiler (Kineto),
// the CPU ops (the training thread's; every thread's on a GPU) and the GPU's work read back as
// OpIntervals for categorise.
#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "profile/quiet_stderr.h"
#include "profile/time_breakdown.h"

namespace ampbench::harness {
namespace {

constexpr const char* kPassScope = "ampbench::profiled steps";

// libkineto::ActivityType's GPU_MEMCPY (3), GPU_MEMSET (4) and CONCURRENT_KERNEL (5), by number: its
// header is not on every LibTorch's include path, and these values have not changed since Kineto
// began (torch 2.11 to 2.15 have them).
bool is_device_work(std::uint8_t activity_type) { return activity_type >= 3 && activity_type <= 5; }

}  // namespace

reports::TimeBreakdown profile_time_breakdown(const std::function<void()>& run_pass, std::int64_t steps,
                                              bool cuda_kernels) {
  using namespace torch::profiler::impl;
  // Kineto logs its start and stop (and, without a GPU, a failed device count) to std::cerr, from
  // its own threads too: kept off the worker's progress channel while the profiler runs.
  const detail::QuietStderr quiet;
  const ProfilerConfig config(ProfilerState::KINETO, /*report_input_shapes=*/true);
  std::set<ActivityType> activities{ActivityType::CPU};
  if (cuda_kernels) activities.insert(ActivityType::CUDA);
  torch::autograd::profiler::prepareProfiler(config, activities);
  torch::autograd::profiler::enableProfiler(config, activities);
  const auto start = std::chrono::steady_clock::now();
  {
    RECORD_USER_SCOPE(kPassScope);
    run_pass();
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto result = torch::autograd::profiler::disableProfiler();
  // The training thread is the one that recorded the pass's scope.
  std::uint64_t thread = 0;
  for (const auto& event : result->events()) {
    if (event.name() == kPassScope) thread = event.startThreadId();
  }
  std::vector<OpInterval> ops;
  for (const auto& event : result->events()) {
    if (event.deviceType() == c10::DeviceType::CUDA) {
      // The device's work: kernels, copies and memsets, each linked to the CPU op that launched it
      // by its linked correlation id (how torch.autograd.profiler pairs them too). Not the GPU-side
      // spans of the host's scopes, nor sync or event records: they would count the same time twice
      // (on an H200 the categories summed to 126% of the step with them).
      if (!is_device_work(event.activityType())) continue;
      ops.push_back({event.name(), "", event.startNs(), event.endNs(), {}, true, event.linkedCorrelationId()});
      continue;
    }
    if (event.deviceType() != c10::DeviceType::CPU || event.name() == kPassScope) continue;
    // On the CPU the training thread runs the whole step, the backward included. On CUDA the
    // autograd engine runs the backward on a thread of its own, whose ops launch those kernels.
    if (!cuda_kernels && event.startThreadId() != thread) continue;
    const auto dtypes = event.hasTypes() ? event.dtypes() : c10::ArrayRef<std::string>{};
    const auto first_float = std::find_if(dtypes.begin(), dtypes.end(), [](const std::string& dtype) {
      return dtype == "float" || dtype == "c10::BFloat16" || dtype == "c10::Half" || dtype == "double";
    });
    std::string dtype;
    if (first_float != dtypes.end()) {
      dtype = *first_float == "float"           ? "float32"
              : *first_float == "c10::BFloat16" ? "bfloat16"
              : *first_float == "c10::Half"     ? "float16"
                                                : "float64";
    }
    std::vector<std::vector<std::int64_t>> shapes;
    if (event.hasShapes()) shapes.assign(event.shapes().begin(), event.shapes().end());
    ops.push_back({event.name(), dtype, event.startNs(), event.endNs(), std::move(shapes), false, event.correlationId(),
                   event.startThreadId()});
  }
  const std::string what = cuda_kernels ? "CUDA kernel time by the op that launched it (on any thread)"
                                        : "self time of the CPU ops of the training thread";
  return categorise(std::move(ops), steps, wall_s,
                    "LibTorch profiler (Kineto), " + what + ", " + std::to_string(steps) + " profiled steps");
}

}  // namespace ampbench::harness
