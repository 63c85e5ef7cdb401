// Internal (used by the runner and its benchmark): the timed phase of a workload. Each round runs a
// block of steps of every mode and of the machine probe (a fixed float32 training step), in an order that
// rotates every round and flips every cycle, so slow drift of the machine hits every mode alike and
// each round pairs the modes in time. A block's first step is not timed: the one after a switch
// pays for the previous mode's caches and freed memory, which a mode trained alone never does
// (docs/performance.md, "Valid numbers"). After each round the intervals over rounds are updated,
// and the phase stops once they are all within the target precision (or at a cap).
#pragma once

#include <c10/core/Device.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/reports/stop_reason.h"
#include "measure/device_step_timer.h"
#include "measure/mode_session.h"
#include "measure/round_meters.h"

namespace ampbench::harness::detail {

// Host or device time of one slot's steps. On a GPU each step is bracketed by device events
// (read when the round ends); on the CPU by the host clock.
class StepTimer {
 public:
  explicit StepTimer(c10::Device device);
  template <typename Work>
  void time(Work&& work, std::vector<double>& host_seconds) {
    const auto start = std::chrono::steady_clock::now();
    if (device_timer_) device_timer_->start_step();
    work();
    if (device_timer_) device_timer_->end_step();
    host_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // Every step's time so far (waits for the device on GPUs).
  [[nodiscard]] const std::vector<double>& all(const std::vector<double>& host_seconds);
  [[nodiscard]] bool on_device() const { return device_timer_.has_value(); }

 private:
  std::optional<DeviceStepTimer> device_timer_;
};

// The process's page faults during each timed step, read around the step outside its timer.
struct StepFaults {
  std::vector<std::int64_t> minor;
  std::vector<std::int64_t> major;
};

// One timed step of a mode exactly as the rounds run it: the page-fault counters and the memory
// ledger around the step, the timer inside. bench/harness_overhead_benchmark times this against a
// bare step.
void timed_step(ModeSession& session, TensorMemoryProbe& memory, StepTimer& timer, std::vector<double>& host_seconds,
                StepFaults& faults);

struct RoundRules {
  std::int64_t min_steps = 1;   // per mode, before the precision target may stop
  std::int64_t max_steps = 1;   // per mode
  std::int64_t min_rounds = 2;  // before the precision target may stop
  std::int64_t steps_per_round = 1;
  std::int64_t untimed_steps_per_block = 1;  // before each mode's timed steps: untimed_steps_per_block()
  double max_noise = 0.02;                   // relative 95% CI half-width over rounds, for every estimate
  double time_cap_s = 1.0;                   // the whole timed phase
  // Data parallel: every rank must stop at the same round (one that stopped early would leave the
  // others waiting in an all-reduce), so each round's reason to stop goes through this and the
  // group's answer is taken; unset in one process. With it set, a step that throws ends the phase
  // (the rank cannot drop a mode its peers still all-reduce) instead of only its mode.
  // nullopt: go on.
  std::function<std::optional<reports::StopReason>(std::optional<reports::StopReason>)> agree_stop;
};

// Untimed steps at the start of each mode's block, after another mode's (or the probe's) block ran:
// one on a CPU, two on a GPU. On an H200 (bench/partners.py, transformer, 2 s cap) the
// first timed step after one untimed step still took 1.11x the next in FP16 (4.30 against 3.87 ms;
// 1.16x when FP32 was the partner, which left one timed step per round: every FP16 sample was
// that step), while the one after it agreed with FP16 alone within 0.2% (3.865 against 3.873 ms).
// On CPUs the first timed step is within 3% of the later ones (docs/performance.md, "Valid
// numbers"), and a CPU step is up to a hundred times longer: one untimed step there.
[[nodiscard]] std::int64_t untimed_steps_per_block(const c10::Device& device);

// Timed steps of each mode per round when the user leaves it to ampbench: rounds of about
// time_cap / 20 and of at most max_steps / 20 steps (so a run that ends at either cap still has
// about 20 rounds to estimate its spread from), at most a second, and at least one step.
// `pass_seconds` is one step of every mode together.
[[nodiscard]] std::int64_t auto_steps_per_round(double pass_seconds, double time_cap_s, std::int64_t max_steps);

// How many rounds one worker's timed phase will have under `rules` for modes whose steps take
// `step_seconds` each (their warm-up's): the time cap over one round's blocks (timed and untimed
// steps, the probe left out), or the step cap over the steps per round, whichever binds first.
[[nodiscard]] double expected_rounds(const RoundRules& rules, const std::vector<double>& step_seconds);

// The order of the blocks (slot indices 0..slots-1) in round `round`: rotated by the round,
// reversed every other cycle of `slots` rounds, so each slot visits every position and runs both
// before and after every other slot.
[[nodiscard]] std::vector<std::size_t> block_order(std::size_t slots, std::int64_t round);

struct SessionTimes {
  std::vector<double> step_s;       // every timed step (device time on GPUs)
  std::vector<double> host_step_s;  // host time per step (GPUs only)
  std::vector<std::int64_t> step_round;
  std::vector<double> round_median_s;
  StepFaults faults;  // per timed step, in step_s order
  // Per timed step, its index among the session's steps (warm-up and each block's untimed first
  // step included): where its loss, gradient norm and all-reduce figures are.
  std::vector<std::int64_t> step_index;
  std::string error;  // set when a step threw: the session left the rotation then
  // Per round, where the device's energy is read (RoundMeters): the joules of this session's timed
  // steps and the seconds they were read over.
  std::vector<double> round_joules;
  std::vector<double> round_window_s;
};

struct RoundsOutcome {
  std::vector<SessionTimes> sessions;  // in the order given
  std::vector<double> probe_round_median_s;
  std::string probe;  // what the probe timed (Rounds::probe)
  std::int64_t rounds = 0;
  std::optional<reports::StopReason> stop_reason;  // why the rounds ended; nullopt while they go on
  // A GPU's state per round (empty without NVML), and what read the sessions' energy (empty: none).
  std::vector<reports::GpuRoundState> device_rounds;
  std::optional<double> max_sm_clock_mhz;
  std::string energy_meter;
  double energy_update_s = 0.0;
};

using RoundProgress = std::function<void(std::int64_t round, std::int64_t steps, double elapsed_s)>;

// sessions[0] is the reference the speedups are paired against (when more than one session).
[[nodiscard]] RoundsOutcome run_rounds(std::vector<ModeSession*> sessions, TensorMemoryProbe& memory,
                                       const RoundRules& rules, c10::Device device, const RoundProgress& progress = {});

}  // namespace ampbench::harness::detail
