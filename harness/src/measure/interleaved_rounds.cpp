#include "measure/interleaved_rounds.h"

#include <c10/util/Exception.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>

#include "ampbench/reports/stats.h"
#include "machine/device_hooks.h"
#include "measure/machine_probe.h"
#include "measure/page_faults.h"

namespace ampbench::harness::detail {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

constexpr double kMaxRoundSeconds = 1.0;
constexpr double kRoundsPerCap = 20.0;

std::string error_text(const std::exception& error) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
  const std::string text = c10_error != nullptr ? c10_error->what_without_backtrace() : error.what();
  return text.substr(0, text.find('\n'));
}

double round_median(const std::vector<double>& times, const std::vector<std::int64_t>& rounds, std::int64_t round) {
  std::vector<double> in_round;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (rounds[i] == round) in_round.push_back(times[i]);
  }
  return reports::median(in_round);
}

struct Slot {
  ModeSession* session = nullptr;  // null for the probe
  StepTimer timer;
  std::vector<double> host_s;
  std::vector<std::int64_t> step_round;
  std::vector<std::int64_t> step_index;
  StepFaults faults;
  SessionTimes* times = nullptr;
};

bool precise_enough(const RoundsOutcome& outcome, const RoundRules& rules) {
  const auto& reference = outcome.sessions.front();
  for (const auto& session : outcome.sessions) {
    if (!session.error.empty()) continue;
    if (static_cast<std::int64_t>(session.step_s.size()) < rules.min_steps) return false;
    if (reports::summarize_rounds(session.round_median_s).relative_ci_half_width > rules.max_noise) return false;
    if (&session == &reference || !reference.error.empty()) continue;
    const auto ratio = reports::paired_round_ratio(reference.round_median_s, session.round_median_s);
    if ((ratio.ci_high - ratio.ci_low) / 2.0 / ratio.value > rules.max_noise) return false;
  }
  return true;
}

}  // namespace

StepTimer::StepTimer(c10::Device device) {
  if (!device.is_cpu()) device_timer_.emplace(device);
}

const std::vector<double>& StepTimer::all(const std::vector<double>& host_seconds) {
  return device_timer_ ? device_timer_->all_step_seconds() : host_seconds;
}

void timed_step(ModeSession& session, TensorMemoryProbe& memory, StepTimer& timer, std::vector<double>& host_seconds,
                StepFaults& faults) {
  // The fault counters and the ledger are read outside the timed interval.
  const auto before = process_page_faults();
  session.memory().begin(memory);
  session.step([&](const std::function<void()>& step) { timer.time(step, host_seconds); });
  session.memory().end(memory);
  const auto after = process_page_faults();
  faults.minor.push_back(after.minor - before.minor);
  faults.major.push_back(after.major - before.major);
}

std::int64_t untimed_steps_per_block(const c10::Device& device) { return device.is_cuda() ? 2 : 1; }

std::int64_t auto_steps_per_round(double pass_seconds, double time_cap_s, std::int64_t max_steps) {
  const double round_seconds = std::min(kMaxRoundSeconds, time_cap_s / kRoundsPerCap);
  if (!(pass_seconds > 0.0)) return 1;
  const auto by_time = static_cast<std::int64_t>(std::floor(round_seconds / pass_seconds));
  const auto by_steps = static_cast<std::int64_t>(std::floor(static_cast<double>(max_steps) / kRoundsPerCap));
  return std::max<std::int64_t>(1, std::min(by_time, by_steps));
}

double expected_rounds(const RoundRules& rules, const std::vector<double>& step_seconds) {
  double round_s = 0.0;
  for (const double step : step_seconds) {
    round_s += static_cast<double>(rules.steps_per_round + rules.untimed_steps_per_block) * step;
  }
  const double by_steps = static_cast<double>(rules.max_steps) / static_cast<double>(rules.steps_per_round);
  return round_s > 0.0 ? std::min(rules.time_cap_s / round_s, by_steps) : by_steps;
}

std::vector<std::size_t> block_order(std::size_t slots, std::int64_t round) {
  std::vector<std::size_t> order(slots);
  const auto count = static_cast<std::int64_t>(slots);
  for (std::size_t i = 0; i < slots; ++i)
    order[i] = static_cast<std::size_t>((static_cast<std::int64_t>(i) + round) % count);
  if ((round / count) % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

namespace {

// The slots of one timed phase (each mode, then the probe) and what they have measured so far.
class Rotation {
 public:
  Rotation(const std::vector<ModeSession*>& sessions, RoundsOutcome& outcome, c10::Device device)
      : probe_(device), outcome_(outcome), meters_(device, sessions.size() + 1) {
    outcome_.sessions.resize(sessions.size());
    for (std::size_t i = 0; i < sessions.size(); ++i) {
      slots_.push_back({sessions[i], StepTimer(device), {}, {}, {}, {}, &outcome_.sessions[i]});
    }
    slots_.push_back({nullptr, StepTimer(device), {}, {}, {}, {}, &probe_times_});
    outcome_.max_sm_clock_mhz = meters_.max_sm_clock_mhz();
    outcome_.energy_meter = meters_.energy_meter();
    outcome_.energy_update_s = meters_.energy_update_s();
  }

  // A block of every live mode and of the probe, in this round's order: first `untimed` untimed
  // steps of a mode, one of the probe (the caches, the allocator and the thread pool still hold the
  // previous block's work: a mode alone never pays that), then `steps` timed ones, fewer where the
  // step cap is near. A mode whose step throws leaves the rotation with its error; the probe
  // throwing means the device is gone.
  void run_round(std::int64_t round, std::int64_t steps, std::int64_t untimed, std::int64_t max_steps,
                 TensorMemoryProbe& memory, bool rethrow) {
    meters_.begin_round();
    for (const auto index : block_order(slots_.size(), round)) {
      auto& slot = slots_[index];
      if (!live(slot)) continue;
      try {
        if (slot.session == nullptr) {
          probe_.run();
          meters_.begin_block();
          for (std::int64_t step = 0; step < steps; ++step) slot.timer.time([&] { probe_.run(); }, slot.host_s);
        } else {
          for (std::int64_t step = 0; step < untimed; ++step) slot.session->metered_step(memory);
          const auto left = max_steps - static_cast<std::int64_t>(slot.host_s.size());
          meters_.begin_block();
          for (std::int64_t step = 0; step < std::min(steps, left); ++step) {
            slot.step_index.push_back(slot.session->steps_done());
            timed_step(*slot.session, memory, slot.timer, slot.host_s, slot.faults);
          }
        }
        meters_.end_block(index);
        slot.step_round.resize(slot.host_s.size(), round);
      } catch (const std::exception& error) {
        slot.times->error = error_text(error);
        if (slot.session == nullptr || rethrow) throw;
      }
    }
  }

  // Reads the round's times (waiting for the device on GPUs) and its median per slot.
  void close_round(std::int64_t round) {
    meters_.end_round();
    for (std::size_t index = 0; index < slots_.size(); ++index) {
      auto& slot = slots_[index];
      if (!live(slot)) continue;
      auto& times = *slot.times;
      if (meters_.measures_energy()) {
        times.round_joules = meters_.energy_of(index).round_joules;
        times.round_window_s = meters_.energy_of(index).round_window_s;
      }
      times.step_s = slot.timer.all(slot.host_s);
      if (slot.timer.on_device()) times.host_step_s = slot.host_s;
      times.step_round = slot.step_round;
      times.faults = slot.faults;
      times.step_index = slot.step_index;
      times.round_median_s.push_back(round_median(times.step_s, times.step_round, round));
    }
    outcome_.rounds = round + 1;
    outcome_.probe_round_median_s = probe_times_.round_median_s;
    outcome_.probe = probe_.name();
    outcome_.device_rounds = meters_.device_rounds();
  }

  [[nodiscard]] bool any_mode_live() const {
    return std::any_of(slots_.begin(), slots_.end() - 1, [](const Slot& slot) { return live(slot); });
  }
  [[nodiscard]] std::int64_t most_steps() const {
    std::int64_t most = 0;
    for (auto it = slots_.begin(); it != slots_.end() - 1; ++it) {
      if (live(*it)) most = std::max<std::int64_t>(most, static_cast<std::int64_t>(it->host_s.size()));
    }
    return most;
  }

 private:
  static bool live(const Slot& slot) { return slot.times->error.empty(); }

  MachineProbe probe_;
  RoundsOutcome& outcome_;
  SessionTimes probe_times_;
  std::vector<Slot> slots_;
  RoundMeters meters_;
};

std::optional<reports::StopReason> reason_to_stop(const RoundsOutcome& outcome, const RoundRules& rules,
                                                  std::int64_t most_steps, double elapsed_s) {
  using reports::StopReason;
  if (outcome.rounds >= rules.min_rounds && precise_enough(outcome, rules)) return StopReason::kPrecisionReached;
  if (most_steps >= rules.max_steps) return StopReason::kStepCap;
  // The time cap wins over min_rounds and min_steps, so a very slow mode (AMP on a CPU without
  // low-precision GEMM) still ends, with the precision it reached recorded; two rounds at least,
  // for an interval.
  if (elapsed_s >= rules.time_cap_s && outcome.rounds >= 2) return StopReason::kTimeCap;
  return std::nullopt;
}

}  // namespace

RoundsOutcome run_rounds(std::vector<ModeSession*> sessions, TensorMemoryProbe& memory, const RoundRules& rules,
                         c10::Device device, const RoundProgress& progress) {
  RoundsOutcome outcome;
  Rotation rotation(sessions, outcome, device);
  const auto start = Clock::now();
  for (std::int64_t round = 0; rotation.any_mode_live() && !outcome.stop_reason; ++round) {
    rotation.run_round(round, rules.steps_per_round, rules.untimed_steps_per_block, rules.max_steps, memory,
                       static_cast<bool>(rules.agree_stop));
    rotation.close_round(round);
    const double elapsed = seconds_since(start);
    if (progress) progress(outcome.rounds, rotation.most_steps(), elapsed);
    if (rotation.any_mode_live()) {
      const auto reason = reason_to_stop(outcome, rules, rotation.most_steps(), elapsed);
      outcome.stop_reason = rules.agree_stop ? rules.agree_stop(reason) : reason;
    }
  }
  if (!outcome.stop_reason) outcome.stop_reason = reports::StopReason::kEveryModeFailed;
  synchronize(device);
  return outcome;
}

}  // namespace ampbench::harness::detail
