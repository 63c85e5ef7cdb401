// Why `check` gave a cell its verdict, as typed values: check.cpp decides and keeps the figures it
// decided on; the words are the renderers' (describe below), as explain's findings carry an id and
// their evidence. A program reads the variant's alternative and its fields, never a sentence.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ampbench/reports/divergence_verdict.h"
#include "ampbench/reports/ratio.h"
#include "ampbench/reports/stats.h"

namespace ampbench::reports {

// The step time of a cell timed in interleaved rounds in both runs: per machine probe with its
// test, the rounds each run had, and the raw and probe changes beside it (both or neither).
struct RoundsFigures {
  RoundComparison per_probe;
  std::int64_t base_rounds = 0;
  std::int64_t current_rounds = 0;
  std::optional<double> raw_ratio;
  std::optional<double> probe_ratio;
};

// The step time of older reports without rounds: the median steps and the U test over them.
struct StepsFigures {
  Ratio ratio;
  double base_median_s = 0.0;
  double current_median_s = 0.0;
  double p_value = 1.0;
};

// What a step-time change came to.
enum class StepTimeOutcome {
  kRegressed,       // significant and beyond the threshold (by rounds, the raw time confirming)
  kFaster,          // the same, faster
  kNotSignificant,  // by steps: beyond the threshold, not significant
  kUnresolved,      // by rounds: beyond the threshold per probe, within the runs' own noise
  kRawChangedLess,  // by rounds: resolved per probe, but the raw time changed less than the threshold
  kMachineChange,   // by rounds: within the threshold per probe, beyond it raw
  kHostState,       // the probe moved beyond kSlowMachineFactor: one run was in the host's other state
};

struct StepTimeReason {
  StepTimeOutcome outcome = StepTimeOutcome::kRegressed;
  std::variant<RoundsFigures, StepsFigures> figures;
  double alpha = 0.0;      // the significance level judged by
  double threshold = 0.0;  // the largest acceptable change
};

// The exact U test cannot reach p < alpha with this few steps on a side.
struct TooFewSamplesReason {
  std::int64_t base_steps = 0;
  std::int64_t current_steps = 0;
  double alpha = 0.0;
};

// Both runs have rounds but timed different machine probes: compared step by step.
struct ProbesDifferReason {
  std::string probes;  // which probes, as compare found them
};

struct MemoryReason {
  double growth = 0.0;  // current / baseline peak tensor bytes - 1
  std::int64_t base_bytes = 0;
  std::int64_t current_bytes = 0;
  double threshold = 0.0;
};

// Joules per timed step grew beyond the threshold, significantly (Welch's t on the rounds' logs).
struct EnergyReason {
  RoundComparison change;  // current over baseline
  double threshold = 0.0;
  double alpha = 0.0;
};

// Most of a cell's rounds ran throttled in one of the runs (a GPU's clocks held down, device_state.h):
// its step time is the throttled GPU's, so it is not judged.
struct ThrottledReason {
  bool in_baseline = false;  // else in the current run
  std::int64_t throttled_rounds = 0;
  std::int64_t rounds = 0;
  std::vector<std::string> causes;  // the reasons the rule saw, most frequent first
};

// The current cell's divergence from FP32 got worse than the baseline's, or beyond --max-divergence
// (`tolerance`); a non-finite loss carries only the verdicts.
struct DivergenceReason {
  DivergenceVerdict verdict = DivergenceVerdict::kWithinFloor;
  std::optional<DivergenceVerdict> baseline;  // absent: the baseline cell has no divergence
  double relative_difference = 0.0;
  std::string reference_mode;
  double floor = 0.0;
  double ratio_to_floor = 0.0;
  std::optional<double> tolerance;
};

// The optimizer stepped on a gradient whose norm was not finite.
struct NonFiniteGradNormReason {
  std::int64_t step = 0;
};

// The cells could not be compared (a failure, no samples): compare's note says why.
struct NotComparableReason {
  std::string note;
};

// A worker of the cell's workload died and ran again: its figures include the rerun.
struct RerunReason {
  std::string rerun;
};

// The cell is in one report only.
struct MissingReason {
  bool in_baseline = false;  // only in the baseline; else only in the current report
};

using CheckReason =
    std::variant<StepTimeReason, TooFewSamplesReason, ProbesDifferReason, MemoryReason, EnergyReason, ThrottledReason,
                 DivergenceReason, NonFiniteGradNormReason, NotComparableReason, RerunReason, MissingReason>;

// The reason in words, as the terminal, Markdown, HTML and JSON renderings of check and compare
// show it.
[[nodiscard]] std::string describe_reason(const CheckReason& reason);
// A stable name of the reason's kind: "step_time_regressed", "step_time_faster",
// "step_time_not_significant", "step_time_unresolved", "step_time_raw_changed_less",
// "step_time_machine_change", "step_time_host_state", "too_few_samples", "probes_differ", "memory",
// "energy", "throttled", "divergence", "non_finite_grad_norm", "not_comparable", "rerun", "missing".
[[nodiscard]] const char* reason_id(const CheckReason& reason);
// Each of them in words, in their order.
[[nodiscard]] std::vector<std::string> describe_reasons(const std::vector<CheckReason>& reasons);

}  // namespace ampbench::reports
