// plan_run (run.h): the settings checked and resolved against this machine (device, workloads,
// modes, threads, ranks, allocator) before anything is measured; each refusal names its flag.
#include "ampbench/harness/run.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "ampbench/harness/environment_probe.h"
#include "ampbench/harness/mode.h"
#include "ampbench/workloads/preset.h"
#include "ampbench/workloads/registry.h"
#include "measure/graphed_step.h"
#include "worker/worker_allocator.h"

namespace ampbench::harness {
namespace {

using reports::flag_of;
using reports::RunConfig;
using reports::SettingError;

// What this version's GPU paths have been through; the run writes it into its report so a later
// version reading the report does not restate its own status (docs/verified.md).
constexpr const char* kGpuVerification =
    "this ampbench version's GPU paths are verified on one GPU only in part: a whole large suite (four modes, "
    "CUDA-event timing, CUDA memory, CUPTI tensor-core metrics, the time breakdown and explain), the validity "
    "benchmark's transformer and most of the test suite ran on an NVIDIA H200; NCCL (2 GPUs) has not, nor has the "
    "GradScaler's start-up before the numerics pass, added after that run; see docs/verified.md.";

bool has_gpu(const reports::Environment& environment) {
  return std::any_of(environment.devices.begin(), environment.devices.end(),
                     [](const auto& device) { return device.name.rfind("cuda:", 0) == 0; });
}

// "auto" picks the first GPU, else the CPU; "cuda" means cuda:0. The device must exist.
std::string resolve_device(const std::string& requested, const reports::Environment& environment) {
  if (requested == "auto") return has_gpu(environment) ? "cuda:0" : "cpu";
  if (requested == "cpu") return requested;
  const std::string device = requested == "cuda" ? "cuda:0" : requested;
  if (device.rfind("cuda:", 0) != 0)
    throw SettingError(flag_of(&RunConfig::device) + " " + requested + ": expected auto, cpu, cuda or cuda:N");
  const bool known = std::any_of(environment.devices.begin(), environment.devices.end(),
                                 [&](const auto& candidate) { return candidate.name == device; });
  if (!known) {
    throw SettingError(flag_of(&RunConfig::device) + " " + requested + ": " +
                       (has_gpu(environment) ? "no such GPU" : environment.cuda_status));
  }
  return device;
}

void resolve_workloads(std::vector<std::string>& names) {
  const auto& known = workloads::known_workloads();
  if (names.empty()) {
    for (const auto& info : known) names.push_back(info.name);
  }
  for (const auto& name : names) {
    if (std::none_of(known.begin(), known.end(), [&](const auto& info) { return info.name == name; })) {
      throw SettingError(flag_of(&RunConfig::workloads) + ": unknown workload '" + name + "' (see 'ampbench list')");
    }
  }
}

// The default set when none (or the CPU's default set) is named; FP32, the reference, first.
void resolve_modes(std::vector<std::string>& names, const std::string& device) {
  if (names.empty() || names == default_modes(false)) names = default_modes(device != "cpu");
  for (const auto& name : names) {
    try {
      if (find_mode(name).cuda_only && device == "cpu") {
        throw SettingError(flag_of(&RunConfig::modes) + " " + name + ": needs a CUDA device, and the device is cpu");
      }
    } catch (const std::invalid_argument& error) {
      if (dynamic_cast<const SettingError*>(&error) != nullptr) throw;
      throw SettingError(flag_of(&RunConfig::modes) + ": " + error.what());
    }
  }
  std::stable_partition(names.begin(), names.end(),
                        [](const std::string& mode) { return is_reference_mode(find_mode(mode)); });
}

// --graphs on: each mode graphed; both: the eager modes, then each graphed. A graphed mode is asked
// for through --graphs, never named in --modes (its cells need the static batches --graphs sets up).
void apply_graphs(RunConfig& config) {
  for (const auto& name : config.modes) {
    if (reports::is_graphed_mode(name)) {
      throw SettingError(flag_of(&RunConfig::modes) + " " + name + ": name the eager mode (" +
                         reports::eager_mode_of(name) + ") and add " + flag_of(&RunConfig::graphs) + " on or both");
    }
  }
  if (config.graphs == reports::GraphExecution::kOff) return;
  const std::string flag = flag_of(&RunConfig::graphs) + " " + std::string(to_string(config.graphs));
  if (config.device == "cpu") throw SettingError(flag + ": CUDA graphs need a CUDA device, and the device is cpu");
  if (config.warmup <= detail::kEagerStepsBeforeCapture) {
    throw SettingError(flag + " with " + flag_of(&RunConfig::warmup) + " " + std::to_string(config.warmup) +
                       ": a graphed mode runs " + std::to_string(detail::kEagerStepsBeforeCapture) +
                       " eager steps and its capture before its timed steps, so " + flag_of(&RunConfig::warmup) +
                       " must be at least " + std::to_string(detail::kEagerStepsBeforeCapture + 1));
  }
  config.modes = modes_with_graphs(config.modes, config.graphs);
}

// A preloaded policy must be installed; without isolation this process itself must already run
// under the policy's malloc (nothing can preload it now), and applies the policy here, once: the
// record is the run's. With isolation each worker applies it and the first one's is the record.
std::optional<reports::AllocatorRecord> require_allocator(const reports::RunConfig& config) {
  (void)detail::allocator_library_path(config.allocator);
  if (config.isolate) return std::nullopt;
  try {
    return detail::apply_allocator_policy(config.allocator);
  } catch (const std::runtime_error& error) {
    throw SettingError(error.what());
  }
}

// NCCL's ranks each own a GPU: rank r (or LOCAL_RANK under torchrun) trains on cuda:r.
void require_gpu_per_rank(const RunPlan& plan) {
  if (plan.config.device == "cpu" || plan.config.ranks == 1) return;
  const auto gpus = std::count_if(plan.environment.devices.begin(), plan.environment.devices.end(),
                                  [](const auto& device) { return device.name.rfind("cuda:", 0) == 0; });
  const auto highest = plan.torchrun ? plan.torchrun->local_rank : plan.config.ranks - 1;
  if (highest < gpus) return;
  throw SettingError(plan.torchrun
                         ? "LOCAL_RANK=" + std::to_string(highest) + ": this machine has " + std::to_string(gpus) +
                               " GPU(s), one per rank"
                         : flag_of(&RunConfig::ranks) + " " + std::to_string(plan.config.ranks) + " on " +
                               plan.config.device + ": one GPU per rank, and this machine has " + std::to_string(gpus));
}

// Several ranks on this machine share its hardware threads unless --threads says otherwise.
void share_threads(RunPlan& plan, std::int64_t ranks_here) {
  if (plan.config.threads > 0 || ranks_here <= 1) return;
  const auto hardware = static_cast<std::int64_t>(std::max(1U, std::thread::hardware_concurrency()));
  plan.config.threads = static_cast<int>(std::max<std::int64_t>(1, hardware / ranks_here));
}

// Under torchrun WORLD_SIZE is the world size; --ranks, if given, must say the same. A world of
// one is an ordinary run.
std::optional<TorchrunRank> apply_torchrun(reports::RunConfig& config) {
  auto torchrun = torchrun_rank_from_environment();
  if (!torchrun || torchrun->world_size == 1) return std::nullopt;
  if (config.ranks != 1 && config.ranks != torchrun->world_size) {
    throw SettingError(flag_of(&RunConfig::ranks) + " " + std::to_string(config.ranks) +
                       ": the environment's WORLD_SIZE is " + std::to_string(torchrun->world_size) +
                       " (torchrun starts the ranks; leave " + flag_of(&RunConfig::ranks) + " out)");
  }
  config.ranks = torchrun->world_size;
  return torchrun;
}

// "auto" becomes the preset sized for the device; a named preset is honoured. Fills the preset's
// numerics steps when none were given.
std::string resolve_preset(RunConfig& config) {
  std::string choice;
  if (config.preset == workloads::kAutoPreset) {
    const auto preset = workloads::preset_for_device(config.device != "cpu");
    config.preset = workloads::to_string(preset);
    choice = "preset " + config.preset + ": " + flag_of(&RunConfig::preset) + " not given and the device is " +
             config.device + " (" + workloads::preset_info(preset).summary + ")";
  }
  try {
    const auto preset = workloads::parse_preset(config.preset);
    if (!config.numerics_steps) config.numerics_steps = workloads::preset_info(preset).numerics_steps;
  } catch (const std::invalid_argument& error) {
    throw SettingError(flag_of(&RunConfig::preset) + ": " + error.what());
  }
  return choice;
}

}  // namespace

RunPlan plan_run(reports::RunConfig config) {
  RunPlan plan;
  plan.torchrun = apply_torchrun(config);
  reports::validate_run_config(config);
  plan.environment = probe_environment();
  config.device = resolve_device(config.device, plan.environment);
  resolve_workloads(config.workloads);
  resolve_modes(config.modes, config.device);
  apply_graphs(config);
  plan.preset_choice = resolve_preset(config);
  const int hardware_threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  if (config.threads > 4 * hardware_threads) {
    throw SettingError(flag_of(&RunConfig::threads) + " " + std::to_string(config.threads) +
                       ": more than 4x this machine's " + std::to_string(hardware_threads) + " hardware threads");
  }
  if (config.device != "cpu") plan.environment.gpu_verification = kGpuVerification;
  plan.config = std::move(config);
  if (plan.config.ranks > 1 && !plan.config.isolate) {
    throw SettingError(flag_of(&RunConfig::ranks) + " " + std::to_string(plan.config.ranks) +
                       ": each rank is a process of its own; "
                       "isolate must stay on");
  }
  require_gpu_per_rank(plan);
  plan.environment.allocator = require_allocator(plan.config);
  const char* local_world = std::getenv("LOCAL_WORLD_SIZE");
  share_threads(plan, plan.torchrun ? (local_world != nullptr ? std::atoll(local_world) : 1) : plan.config.ranks);
  if (plan.config.threads > 0) plan.environment.threads = plan.config.threads;
  return plan;
}

}  // namespace ampbench::harness
