#include "ampbench/harness/detail/interleaved_rounds.h"

#include <c10/util/Exception.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "ampbench/reports/stats.h"
#include "device_hooks.h"

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

// A fixed float32 matrix product, timed like a step: the machine's own speed at each moment.
// Sized to cost well under a typical step (the CPU's 256^3 is ~0.3 ms at 100 GFLOP/s).
class MachineProbe {
 public:
  explicit MachineProbe(c10::Device device) {
    const std::int64_t n = device.is_cpu() ? 256 : 2048;
    const auto options = torch::TensorOptions().dtype(torch::kFloat).device(device);
    a_ = torch::rand({n, n}, options);
    b_ = torch::rand({n, n}, options);
  }
  void run() const { (void)at::mm(a_, b_); }

 private:
  torch::Tensor a_;
  torch::Tensor b_;
};

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

void timed_step(ModeSession& session, TensorMemoryProbe& memory, StepTimer& timer, std::vector<double>& host_seconds) {
  // The ledger reads the allocator outside the timed interval.
  session.memory().begin(memory);
  timer.time([&] { session.step(); }, host_seconds);
  session.memory().end(memory);
}

std::int64_t auto_steps_per_round(double pass_seconds, double time_cap_s) {
  const double round_seconds = std::min(kMaxRoundSeconds, time_cap_s / kRoundsPerCap);
  if (!(pass_seconds > 0.0)) return 1;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(round_seconds / pass_seconds)));
}

std::vector<std::size_t> pass_order(std::size_t slots, std::int64_t pass) {
  std::vector<std::size_t> order(slots);
  const auto count = static_cast<std::int64_t>(slots);
  for (std::size_t i = 0; i < slots; ++i)
    order[i] = static_cast<std::size_t>((static_cast<std::int64_t>(i) + pass) % count);
  if ((pass / count) % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

RoundsOutcome run_rounds(std::vector<ModeSession*> sessions, TensorMemoryProbe& memory, const RoundRules& rules,
                         c10::Device device, const RoundProgress& progress) {
  RoundsOutcome outcome;
  outcome.sessions.resize(sessions.size());
  const MachineProbe probe(device);
  std::vector<Slot> slots;
  for (std::size_t i = 0; i < sessions.size(); ++i)
    slots.push_back({sessions[i], StepTimer(device), {}, {}, &outcome.sessions[i]});
  SessionTimes probe_times;
  slots.push_back({nullptr, StepTimer(device), {}, {}, &probe_times});

  const auto live = [&](const Slot& slot) { return slot.times->error.empty(); };
  const auto any_mode_live = [&] {
    return std::any_of(slots.begin(), slots.end() - 1, [&](const Slot& slot) { return live(slot); });
  };
  const auto steps_of_live_modes = [&] {
    std::int64_t most = 0;
    for (auto it = slots.begin(); it != slots.end() - 1; ++it) {
      if (live(*it)) most = std::max<std::int64_t>(most, static_cast<std::int64_t>(it->host_s.size()));
    }
    return most;
  };

  const auto start = Clock::now();
  std::int64_t pass = 0;
  for (std::int64_t round = 0; any_mode_live(); ++round) {
    for (std::int64_t in_round = 0; in_round < rules.steps_per_round && steps_of_live_modes() < rules.max_steps;
         ++in_round, ++pass) {
      for (const auto index : pass_order(slots.size(), pass)) {
        auto& slot = slots[index];
        if (!live(slot)) continue;
        try {
          if (slot.session == nullptr) {
            slot.timer.time([&] { probe.run(); }, slot.host_s);
          } else {
            timed_step(*slot.session, memory, slot.timer, slot.host_s);
          }
          slot.step_round.push_back(round);
        } catch (const std::exception& error) {
          slot.times->error = error_text(error);
          if (slot.session == nullptr) throw;  // the probe failing means the device is gone
        }
      }
    }
    for (auto& slot : slots) {
      if (!live(slot)) continue;
      auto& times = *slot.times;
      times.step_s = slot.timer.all(slot.host_s);
      if (slot.timer.on_device()) times.host_step_s = slot.host_s;
      times.step_round = slot.step_round;
      times.round_median_s.push_back(round_median(times.step_s, times.step_round, round));
    }
    outcome.rounds = round + 1;
    const double elapsed = seconds_since(start);
    if (progress) progress(outcome.rounds, steps_of_live_modes(), elapsed);
    if (!any_mode_live()) break;
    if (outcome.rounds >= rules.min_rounds && precise_enough(outcome, rules)) {
      outcome.stop_reason = "precision reached";
    } else if (steps_of_live_modes() >= rules.max_steps) {
      outcome.stop_reason = "step cap";
    } else if (elapsed >= rules.time_cap_s && outcome.rounds >= 2) {
      outcome.stop_reason = "time cap";
    }
    if (!outcome.stop_reason.empty()) break;
  }
  if (outcome.stop_reason.empty()) outcome.stop_reason = "every mode failed";
  synchronize(device);
  outcome.probe_round_median_s = probe_times.round_median_s;
  return outcome;
}

}  // namespace ampbench::harness::detail
