// run_workload (workload_task.h): set-up, warm-up, interleaved rounds (in groups: a far slower mode
// apart), then the meters and the profiled steps, each its own function below.
#include <ATen/Parallel.h>
#include <ampbench/amp/op_counters.h>
#include <c10/util/Exception.h>

#include <chrono>
#include <memory>
#include <optional>

#include "ampbench/harness/workload_task.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/stats.h"
#include "distributed/process_group.h"
#include "error_text.h"
#include "machine/device_hooks.h"
#include "measure/flop_count.h"
#include "measure/interleaved_rounds.h"
#include "measure/interleaving_groups.h"
#include "measure/memory_meters.h"
#include "measure/mode_session.h"
#include "measure/precision_audit.h"
#include "measure/replayed_steps.h"
#include "measure/training_state_snapshot.h"
#include "profile/time_breakdown.h"

namespace ampbench::harness {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kProfiledSteps = 3;  // after the timed rounds: the time breakdown, each CUPTI replay pass

void fail(reports::CellResult& cell, const std::exception& error) {
  cell.status = reports::CellStatus::kFailed;
  cell.error = dynamic_cast<const c10::OutOfMemoryError*>(&error) != nullptr
                   ? "out of memory on " + cell.device + ": " + detail::error_text(error)
                   : detail::error_text(error);
}

struct ModeSlot {
  reports::CellResult cell;
  std::unique_ptr<detail::ModeSession> session;  // null once the mode failed
  double last_warmup_step_s = 0.0;
};

// Where the workload runs: its device, and in a data-parallel worker its process group, through
// which the ranks take every decision that depends on time as rank 0 took it.
struct Placement {
  c10::Device device;
  c10::intrusive_ptr<c10d::ProcessGroup> group;  // null in one process

  [[nodiscard]] bool data_parallel() const { return static_cast<bool>(group); }
  [[nodiscard]] double agreed(double value) const { return detail::from_rank_zero(group.get(), device, value); }
};

void build(const WorkloadTask& task, const Placement& place, detail::TensorMemoryProbe& memory,
           std::vector<ModeSlot>& slots, const WorkloadProgressSink& progress) {
  // Every round's block has its untimed steps before its timed ones, and a round at least one timed
  // step: at most that many more than the timed steps, then the precision audit's step and the
  // profiled ones.
  const std::int64_t capacity = task.config.warmup +
                                (1 + detail::untimed_steps_per_block(place.device)) * task.config.max_steps + 1 +
                                kProfiledSteps;
  for (auto& slot : slots) {
    if (progress) progress({WorkloadStage::kBuilding, slot.cell.mode, 0, 0, 0.0, 0.0});
    try {
      slot.session = std::make_unique<detail::ModeSession>(task, find_mode(slot.cell.mode), place.device, memory,
                                                           capacity, place.group);
      slot.cell.settings = slot.session->settings();
    } catch (const std::exception& error) {
      // A rank cannot drop a mode its peers go on all-reducing: the whole worker fails instead.
      if (place.data_parallel()) throw;
      fail(slot.cell, error);
      detail::release_cached_memory(place.device);
    }
  }
}

// Untimed steps per mode, bounded by --warmup and by --time-cap, whichever comes first: a typo in
// --warmup must not cost hours. The last step's time (synchronised) sizes the rounds. Ranks stop
// warming up when rank 0 does.
void warm_up(const WorkloadTask& task, const Placement& place, detail::TensorMemoryProbe& memory,
             std::vector<ModeSlot>& slots, const WorkloadProgressSink& progress) {
  const auto device = place.device;
  for (auto& slot : slots) {
    if (!slot.session) continue;
    if (progress) progress({WorkloadStage::kWarmingUp, slot.cell.mode, 0, 0, 0.0, 0.0});
    const auto start = Clock::now();
    const auto another_step = [&] {
      // A graphed mode always reaches its capture, so that every timed step of it is a replay.
      const bool capturing =
          slot.session->mode().graphed && slot.session->steps_done() <= detail::kEagerStepsBeforeCapture;
      const bool in_time = std::chrono::duration<double>(Clock::now() - start).count() < task.config.time_cap_s;
      const bool wanted = slot.session->steps_done() < task.config.warmup && (capturing || in_time);
      return place.agreed(wanted ? 1.0 : 0.0) != 0.0;
    };
    try {
      while (another_step()) {
        const auto step_start = Clock::now();
        slot.session->metered_step(memory);
        detail::synchronize(device);
        slot.last_warmup_step_s = std::chrono::duration<double>(Clock::now() - step_start).count();
      }
      slot.cell.warmup_steps = slot.session->steps_done();
    } catch (const std::exception& error) {
      if (place.data_parallel()) throw;
      fail(slot.cell, error);
      slot.session.reset();
    }
  }
}

// This replicate's share of the cell's steps and time: the settings are per cell, and the cell's
// replicates divide them (the first ones take the remainder of the steps, one each).
detail::RoundRules round_rules(const WorkloadTask& task, const Placement& place, const std::vector<ModeSlot*>& live) {
  const auto& config = task.config;
  const auto share = [&](std::int64_t steps) {
    return std::max<std::int64_t>(1, steps / config.replicates + (task.replicate < steps % config.replicates ? 1 : 0));
  };
  detail::RoundRules rules;
  rules.min_steps = share(config.min_steps);
  rules.max_steps = share(config.max_steps);
  rules.min_rounds = config.min_rounds;
  rules.max_noise = config.max_noise;
  rules.untimed_steps_per_block = detail::untimed_steps_per_block(place.device);
  rules.time_cap_s = config.time_cap_s * static_cast<double>(live.size()) / static_cast<double>(config.replicates);
  double pass_seconds = 0.0;
  for (const auto* slot : live) pass_seconds += slot->last_warmup_step_s;
  rules.steps_per_round = config.round_steps > 0
                              ? config.round_steps
                              : detail::auto_steps_per_round(pass_seconds, rules.time_cap_s, rules.max_steps);
  // Data parallel: the steps per round are the same on every rank without a message, since the
  // warm-up step times they follow from are rank 0's already (measure()).
  if (place.data_parallel()) {
    // Rank 0's answer crosses as a number: 0 to go on, else 1 + the reason's index.
    rules.agree_stop = [&place](std::optional<reports::StopReason> reason) -> std::optional<reports::StopReason> {
      const auto agreed = static_cast<int>(place.agreed(reason ? 1.0 + static_cast<double>(*reason) : 0.0));
      if (agreed == 0) return std::nullopt;
      return static_cast<reports::StopReason>(agreed - 1);
    };
  }
  return rules;
}

void fill_throughput(detail::ModeSession& session, reports::CellResult& cell) {
  auto& throughput = cell.throughput;
  auto& workload = session.workload();
  throughput.samples_per_step = workload.samples_per_step();
  throughput.tokens_per_step = workload.tokens_per_step();
  const auto flops = step_flops(workload);
  throughput.flops_per_step = flops.flops_per_step;
  throughput.flops_source = flops.source;
  reports::derive_step_figures(cell);
}

void fill_memory(detail::ModeSession& session, c10::Device device,
                 const std::optional<detail::DeviceMemory>& device_at_start, reports::CellResult& cell) {
  cell.memory.peak_tensor_bytes = session.memory().peak_bytes();
  cell.memory.peak_rss_bytes = peak_rss_bytes();
  if (const auto device_memory = detail::read_device_memory(device)) {
    cell.memory.cuda_peak_reserved_bytes = device_memory->peak_reserved_bytes;
    cell.memory.cuda_total_bytes = device_at_start->total_bytes;
    cell.memory.cuda_free_bytes_at_start = device_at_start->free_bytes;
  }
}

reports::ScalerTelemetry scaler_telemetry(const std::vector<amp::ScalerStepRecord>& records) {
  reports::ScalerTelemetry telemetry;
  for (std::size_t step = 0; step < records.size(); ++step) {
    telemetry.scale.push_back(records[step].scale);
    if (records[step].skipped) telemetry.skipped_steps.push_back(static_cast<std::int64_t>(step));
  }
  return telemetry;
}

// The timed figures of one mode from the rounds: every step, the per-round medians and their
// estimate, the losses and the scaler's record.
// The GPU's state in the rounds and the energy of this mode's timed steps, where they were read.
void fill_device_state(const detail::RoundsOutcome& outcome, const detail::SessionTimes& times,
                       double throttle_threshold_percent, reports::CellResult& cell) {
  if (!outcome.device_rounds.empty()) {
    cell.rounds->device =
        reports::DeviceRounds{outcome.device_rounds, outcome.max_sm_clock_mhz, throttle_threshold_percent, 0};
  }
  if (!outcome.energy_meter.empty()) {
    reports::Energy energy;
    energy.meter = outcome.energy_meter;
    energy.counter_update_s = outcome.energy_update_s;
    energy.round_joules = times.round_joules;
    energy.round_window_s = times.round_window_s;
    cell.energy = std::move(energy);
  }
}

void fill_timed(const detail::RoundsOutcome& outcome, const detail::SessionTimes& times,
                const std::vector<std::string>& interleaved_modes, const WorkloadTask& task, ModeSlot& slot) {
  const auto replicate = task.replicate;
  auto& cell = slot.cell;
  cell.step_times_s = times.step_s;
  cell.page_faults = reports::PageFaults{times.faults.minor, times.faults.major};
  cell.host_step_times_s = times.host_step_s;
  cell.losses = slot.session->losses();
  cell.grad_norms = slot.session->grad_norms();
  cell.throughput.stop_reasons = {{outcome.stop_reason.value_or(reports::StopReason::kEveryModeFailed), 1}};
  reports::Rounds rounds;
  rounds.interleaved_modes = interleaved_modes;
  rounds.step_round = times.step_round;
  rounds.step_time_s = times.round_median_s;
  rounds.probe_s = outcome.probe_round_median_s;
  rounds.probe = outcome.probe;
  rounds.slow_machine_factor = reports::kSlowMachineFactor;
  rounds.round_replicate.assign(times.round_median_s.size(), replicate);
  cell.rounds = std::move(rounds);
  fill_device_state(outcome, times, task.config.throttle_threshold_percent, cell);
  if (slot.session->scaler() != nullptr) cell.scaler = scaler_telemetry(slot.session->scaler_records());
  fill_throughput(*slot.session, cell);
}

// This rank's all-reduce figures over its timed steps (not the warm-up, each block's untimed first step or profiling);
// the parent takes the longest rank's per step.
void fill_data_parallel(const WorkloadTask& task, const detail::ModeSession& session,
                        const std::vector<std::int64_t>& timed_steps, reports::CellResult& cell) {
  const auto* sync = session.sync();
  if (sync == nullptr) return;
  reports::DataParallel parallel;
  parallel.backend = sync->backend();
  parallel.grad_compression = task.config.grad_compression;
  parallel.gradient_sync = sync->description();
  parallel.buckets = sync->buckets();
  const auto& steps = session.communication();
  double bytes = 0.0;
  for (const auto index : timed_steps) {
    const auto& step = steps.at(static_cast<std::size_t>(index));
    parallel.allreduce_times_s.push_back(step.seconds);
    bytes += step.bytes;
  }
  if (!parallel.allreduce_times_s.empty()) {
    parallel.allreduce_bytes_per_step = bytes / static_cast<double>(parallel.allreduce_times_s.size());
    parallel.allreduce_time_s = reports::summarize(parallel.allreduce_times_s);
  }
  cell.ranks = task.rank->world_size;
  cell.data_parallel = std::move(parallel);
}

// One more step per autocast mode with the op counters reset: which ops ran in which dtype. On
// its own step, so the counts are per step and no mode's calls mix with another's.
void audit_precision(ModeSlot& slot) {
  if (!slot.session->mode().autocast) return;
  amp::reset_op_counts();
  slot.session->step();
  slot.cell.precision = detail::precision_audit(amp::op_counts());
}

// The device, checked; a data-parallel rank trains on its machine's GPU of its local rank, and its
// group opens before the modes are built (each mode's Reducer broadcasts rank 0's weights through it).
Placement place(const WorkloadTask& task) {
  c10::Device device(task.config.device);
  if (task.rank && device.is_cuda()) {
    device = c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(task.rank->local_rank));
  }
  detail::require_device(device);
  if (!task.rank) return {device, {}};
  const auto timeout = std::chrono::milliseconds(static_cast<std::int64_t>(task.config.rank_timeout_s * 1000.0));
  return {device, detail::open_process_group(*task.rank, device, timeout)};
}

// The first replicate's extra look at a timed mode, after its rounds: the precision audit, the time
// breakdown and the tensor-core metrics, each over replays of the same steps (the same batches
// from the same weights, optimizer and scaler state).
void profile(const WorkloadTask& task, c10::Device device, ModeSlot& slot) {
  auto& session = *slot.session;
  if (session.mode().graphed) {
    // A replay runs kernels without the ops that the audit counts and the breakdown attributes time to.
    slot.cell.tensor_cores.reason = "not profiled: a graphed cell replays kernels, not the ops the profiling counts";
    return;
  }
  audit_precision(slot);
  const auto profiled = replay_same_steps(
      session.steps_done(), kProfiledSteps,
      [&](std::int64_t index) {
        session.rewind_to(index);
        session.step();
      },
      [&] { detail::synchronize(device); },
      [&]() -> RestoreState {
        std::shared_ptr<TrainingStateSnapshot> state = session.snapshot_training_state();
        return [state] { state->restore(); };
      });
  if (task.config.breakdown) {
    profiled.before_pass();
    slot.cell.breakdown = profile_time_breakdown(profiled.run_pass, kProfiledSteps, device.is_cuda());
  }
  slot.cell.tensor_cores = detail::profile_tensor_cores(device, profiled, task.config.cupti);
}

// The live modes split into the groups that take turns in rounds (interleaving_groups.h).
std::vector<std::vector<ModeSlot*>> interleaving_groups(const WorkloadTask& task, const Placement& place,
                                                        const std::vector<ModeSlot*>& live) {
  const auto slots_of = [&](const std::vector<std::size_t>& indices) {
    std::vector<ModeSlot*> group;
    for (const auto index : indices) group.push_back(live[index]);
    return group;
  };
  std::vector<double> step_seconds;
  for (const auto* slot : live) step_seconds.push_back(slot->last_warmup_step_s);
  const auto rounds_of = [&](const std::vector<std::size_t>& indices) {
    std::vector<double> steps;
    for (const auto index : indices) steps.push_back(step_seconds[index]);
    return detail::expected_rounds(round_rules(task, place, slots_of(indices)), steps);
  };
  std::vector<std::vector<ModeSlot*>> groups;
  if (live.empty()) return groups;
  for (const auto& indices : detail::interleaving_groups(step_seconds, rounds_of)) groups.push_back(slots_of(indices));
  return groups;
}

// One group's timed rounds, then each of its modes' meters and (first replicate) profiled steps.
void time_in_rounds(const WorkloadTask& task, const Placement& placement, detail::TensorMemoryProbe& memory,
                    const std::optional<detail::DeviceMemory>& device_at_start, const std::vector<ModeSlot*>& live,
                    const WorkloadProgressSink& progress) {
  const auto device = placement.device;
  std::vector<detail::ModeSession*> sessions;
  for (auto* slot : live) sessions.push_back(slot->session.get());
  const auto rules = round_rules(task, placement, live);
  const auto outcome = detail::run_rounds(sessions, memory, rules, device, [&](auto round, auto steps, double elapsed) {
    if (progress) progress({WorkloadStage::kRounds, "", round, steps, elapsed, rules.time_cap_s});
  });

  if (progress) progress({WorkloadStage::kProfiling, "", outcome.rounds, 0, 0.0, 0.0});
  std::vector<std::string> interleaved_modes;
  for (const auto* slot : live) interleaved_modes.push_back(slot->cell.mode);
  for (std::size_t i = 0; i < live.size(); ++i) {
    auto& slot = *live[i];
    const auto& times = outcome.sessions[i];
    try {
      if (!times.error.empty()) throw std::runtime_error(times.error);
      fill_timed(outcome, times, interleaved_modes, task, slot);
      slot.cell.rounds->steps_per_round = rules.steps_per_round;
      slot.cell.rounds->untimed_steps_per_block = rules.untimed_steps_per_block;
      fill_memory(*slot.session, device, device_at_start, slot.cell);
      fill_data_parallel(task, *slot.session, times.step_index, slot.cell);
      if (task.replicate == 0) profile(task, device, slot);
    } catch (const std::exception& error) {
      if (placement.data_parallel()) throw;
      fail(slot.cell, error);
    }
  }
}

void measure(const WorkloadTask& task, std::vector<ModeSlot>& slots, const WorkloadProgressSink& progress) {
  const auto placement = place(task);
  if (task.config.threads > 0) at::set_num_threads(task.config.threads);
  const auto device_at_start = detail::start_device_memory(placement.device);
  detail::TensorMemoryProbe memory(placement.device);
  reset_peak_rss();
  build(task, placement, memory, slots, progress);
  warm_up(task, placement, memory, slots, progress);

  std::vector<ModeSlot*> live;
  for (auto& slot : slots) {
    if (!slot.session) continue;
    // Data parallel: the groups and the rounds' sizes follow from these, so every rank takes rank 0's.
    if (placement.data_parallel()) slot.last_warmup_step_s = placement.agreed(slot.last_warmup_step_s);
    live.push_back(&slot);
  }
  for (const auto& group : interleaving_groups(task, placement, live)) {
    time_in_rounds(task, placement, memory, device_at_start, group, progress);
  }
}

}  // namespace

std::vector<reports::CellResult> run_workload(const WorkloadTask& task, const WorkloadProgressSink& progress) {
  std::vector<ModeSlot> slots(task.modes.size());
  for (std::size_t i = 0; i < task.modes.size(); ++i) {
    auto& cell = slots[i].cell;
    cell.workload = task.workload;
    cell.mode = task.modes[i];
    cell.device = task.config.device;
    cell.preset = task.config.preset;
  }
  try {
    measure(task, slots, progress);
  } catch (const std::exception& error) {
    // Nothing of the workload could run (no such device, say): every mode says why.
    for (auto& slot : slots) {
      if (slot.cell.status == reports::CellStatus::kOk) fail(slot.cell, error);
    }
  }
  std::vector<reports::CellResult> cells;
  for (auto& slot : slots) cells.push_back(std::move(slot.cell));
  return cells;
}

}  // namespace ampbench::harness
