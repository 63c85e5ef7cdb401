// The regression rules of check.h: significant and beyond the threshold, or it passes.
#include "ampbench/reports/check.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "ampbench/reports/derived_figures.h"

namespace ampbench::reports {
namespace {

// The smallest two-sided p-value the exact U test can give for these sizes: 2 / C(n1 + n2, n1).
double smallest_exact_p(std::int64_t n1, std::int64_t n2) {
  const auto real = [](std::int64_t value) { return static_cast<double>(value); };
  const double log_choose =
      std::lgamma(real(n1 + n2) + 1.0) - std::lgamma(real(n1) + 1.0) - std::lgamma(real(n2) + 1.0);
  return 2.0 * std::exp(-log_choose);
}

RoundsFigures rounds_figures(const CellComparison& cell) {
  RoundsFigures figures{*cell.normalised_rounds, cell.base_rounds, cell.current_rounds, std::nullopt, std::nullopt};
  if (cell.raw_rounds) figures.raw_ratio = cell.raw_rounds->ratio.value;
  if (cell.probe_rounds) figures.probe_ratio = cell.probe_rounds->ratio.value;
  return figures;
}

StepsFigures steps_figures(const CellComparison& cell) {
  return {cell.time_ratio, cell.base_time.median, cell.current_time.median, cell.u_test.p_value};
}

// A step-time change over older reports' steps: a regression (or an improvement) only when it is
// significant and beyond the threshold; beyond it without significance, a note.
void judge_by_steps(const CellComparison& cell, const CheckOptions& options, CellCheck& check) {
  const double change = cell.time_ratio.value - 1.0;
  const bool significant = cell.u_test.p_value < options.alpha;
  const auto note = [&](StepTimeOutcome outcome) {
    check.reasons.push_back(StepTimeReason{outcome, steps_figures(cell), options.alpha, options.max_slowdown});
  };
  if (significant && change > options.max_slowdown) {
    check.verdict = Verdict::kRegressed;
    note(StepTimeOutcome::kRegressed);
  } else if (significant && change < -options.max_slowdown) {
    if (check.verdict == Verdict::kPass) check.verdict = Verdict::kImproved;
    note(StepTimeOutcome::kFaster);
  } else if (std::fabs(change) > options.max_slowdown) {
    note(StepTimeOutcome::kNotSignificant);
  }
  const auto n1 = cell.base_time.count;
  const auto n2 = cell.current_time.count;
  if (std::min(n1, n2) <= kExactUTestMaxSize && smallest_exact_p(n1, n2) >= options.alpha) {
    check.reasons.push_back(TooFewSamplesReason{n1, n2, options.alpha});
  }
}

// +1 slower beyond the threshold, -1 faster beyond it, 0 within it (the point estimate).
int beyond_threshold(const RoundComparison& comparison, const CheckOptions& options) {
  const double change = comparison.ratio.value - 1.0;
  return change > options.max_slowdown ? 1 : change < -options.max_slowdown ? -1 : 0;
}

// What a change by rounds comes to, or nullopt when it is within the threshold both ways. Two
// views must agree: the step time per machine probe (what the machine's drift does not explain;
// its test is the evidence) and the raw step time (what a user sees). A change is a regression (or
// an improvement) only when per probe it is significant and beyond the threshold and the raw
// change is beyond the threshold in the same direction. Per probe within the threshold: a pass,
// whatever the raw time did (the machine moved). Per probe beyond it but unresolved by the runs'
// noise, or a raw change within the threshold (the probe itself moved the other way):
// "inconclusive" (passes, listed).
std::optional<StepTimeOutcome> rounds_outcome(const CellComparison& cell, const CheckOptions& options) {
  const auto& per_probe = *cell.normalised_rounds;
  const int direction = beyond_threshold(per_probe, options);
  const int raw_direction = beyond_threshold(*cell.raw_rounds, options);
  if (cell.probe_rounds && probe_moved_between_host_states(cell.probe_rounds->ratio.value)) {
    // Neither view can tell the code from the machine: a change either way is listed, not judged.
    if (direction == 0 && raw_direction == 0) return std::nullopt;
    return StepTimeOutcome::kHostState;
  }
  if (direction == 0) {
    return raw_direction != 0 ? std::optional(StepTimeOutcome::kMachineChange) : std::nullopt;
  }
  const bool per_probe_resolved = per_probe.p_value < options.alpha;
  if (per_probe_resolved && raw_direction == direction) {
    return direction > 0 ? StepTimeOutcome::kRegressed : StepTimeOutcome::kFaster;
  }
  return per_probe_resolved ? StepTimeOutcome::kRawChangedLess : StepTimeOutcome::kUnresolved;
}

void judge_by_rounds(const CellComparison& cell, const CheckOptions& options, CellCheck& check) {
  const auto outcome = rounds_outcome(cell, options);
  if (!outcome) return;
  switch (*outcome) {
    case StepTimeOutcome::kRegressed:
      check.verdict = Verdict::kRegressed;
      break;
    case StepTimeOutcome::kFaster:
      if (check.verdict == Verdict::kPass) check.verdict = Verdict::kImproved;
      break;
    case StepTimeOutcome::kMachineChange:
      break;
    default:
      if (check.verdict == Verdict::kPass) check.verdict = Verdict::kInconclusive;
  }
  check.reasons.push_back(StepTimeReason{*outcome, rounds_figures(cell), options.alpha, options.max_slowdown});
}

void check_step_time(const CellComparison& cell, const CheckOptions& options, CellCheck& check) {
  if (cell.normalised_rounds && cell.raw_rounds) {
    judge_by_rounds(cell, options, check);
  } else {
    if (!cell.probe_mismatch.empty()) check.reasons.push_back(ProbesDifferReason{cell.probe_mismatch});
    judge_by_steps(cell, options, check);
  }
}

void check_memory(const CellComparison& cell, const CheckOptions& options, CellCheck& check) {
  if (!cell.memory_ratio || *cell.memory_ratio - 1.0 <= options.max_memory_growth) return;
  check.verdict = Verdict::kRegressed;
  check.reasons.push_back(
      MemoryReason{*cell.memory_ratio - 1.0, cell.base_peak_bytes, cell.current_peak_bytes, options.max_memory_growth});
}

// Joules per step, by rounds as the step time: a regression when significant and beyond the
// threshold; beyond it without significance, inconclusive.
void check_energy(const CellComparison& cell, const CheckOptions& options, CellCheck& check) {
  if (!cell.energy || cell.energy->ratio.value - 1.0 <= options.max_energy_growth) return;
  if (cell.energy->p_value < options.alpha) {
    check.verdict = Verdict::kRegressed;
  } else if (check.verdict == Verdict::kPass) {
    check.verdict = Verdict::kInconclusive;
  }
  check.reasons.push_back(EnergyReason{*cell.energy, options.max_energy_growth, options.alpha});
}

// A side whose rounds ran mostly throttled: its step time is the throttled GPU's.
std::optional<ThrottledReason> mostly_throttled(const CellComparison& cell) {
  for (const auto& [in_baseline, side] :
       {std::pair{true, &cell.base_throttled}, std::pair{false, &cell.current_throttled}}) {
    if (*side && 2 * (*side)->throttled > (*side)->rounds) {
      return ThrottledReason{in_baseline, (*side)->throttled, (*side)->rounds, (*side)->causes};
    }
  }
  return std::nullopt;
}

// Fails on a verdict that got worse: "diverged" (or a non-finite loss) where the baseline was not.
// --max-divergence replaces the floor multiple by an absolute tolerance, still above the floor.
void check_divergence(const CellComparison& cell, const CheckOptions& options, CellCheck& check) {
  if (!cell.current_divergence) return;
  const Divergence& current = *cell.current_divergence;
  const auto& base = cell.base_divergence;
  const bool base_failed = base && is_failure(base->verdict);
  const bool non_finite = current.verdict == DivergenceVerdict::kNonFiniteLoss;
  bool regressed = false;
  if (non_finite) {
    regressed = !(base && base->verdict == DivergenceVerdict::kNonFiniteLoss);
  } else if (options.max_divergence) {
    regressed = current.final_relative_difference > *options.max_divergence && current.ratio_to_floor > 1.0;
  } else {
    regressed = current.verdict == DivergenceVerdict::kDiverged && !base_failed;
  }
  if (!regressed) return;
  check.verdict = Verdict::kRegressed;
  check.reasons.push_back(DivergenceReason{current.verdict, base ? std::optional(base->verdict) : std::nullopt,
                                           current.final_relative_difference, current.reference_mode,
                                           current.final_floor, current.ratio_to_floor,
                                           non_finite ? std::nullopt : options.max_divergence});
}

void check_grad_norm(const CellComparison& cell, CellCheck& check) {
  if (!cell.current_nonfinite_grad_norm_step) return;
  check.verdict = Verdict::kRegressed;
  check.reasons.push_back(NonFiniteGradNormReason{*cell.current_nonfinite_grad_norm_step});
}

CellCheck check_cell(const CellComparison& cell, const CheckOptions& options) {
  CellCheck check{cell.key, Verdict::kPass, {}};
  if (!cell.comparable) {
    check.verdict = cell.failed_only_in_current ? Verdict::kRegressed : Verdict::kNotCompared;
    check.reasons.push_back(NotComparableReason{cell.note});
  } else {
    if (const auto throttled = mostly_throttled(cell)) {
      check.verdict = Verdict::kInconclusive;
      check.reasons.push_back(*throttled);
    } else {
      check_step_time(cell, options, check);
    }
    check_memory(cell, options, check);
    check_energy(cell, options, check);
    check_divergence(cell, options, check);
    check_grad_norm(cell, check);
  }
  for (const auto& rerun : cell.reruns) check.reasons.push_back(RerunReason{rerun});
  return check;
}

void require_judging_options(const CheckOptions& options) {
  if (!(options.alpha > 0.0 && options.alpha <= 0.5)) {
    throw std::invalid_argument("check: alpha must be above 0 and at most 0.5, got " + std::to_string(options.alpha));
  }
  const auto require_threshold = [](double value, const char* name) {
    if (!(std::isfinite(value) && value >= 0.0)) {
      throw std::invalid_argument(std::string("check: ") + name + " must be finite and not negative, got " +
                                  std::to_string(value));
    }
  };
  require_threshold(options.max_slowdown, "max_slowdown");
  require_threshold(options.max_memory_growth, "max_memory_growth");
  require_threshold(options.max_energy_growth, "max_energy_growth");
  if (options.max_divergence) require_threshold(*options.max_divergence, "max_divergence");
}

}  // namespace

// One run's rounds are judged against its own usual probe, so a run spent wholly in the host's
// slower state is invisible to it. Over 41-run series on a shared 2-core CPU a cell's step moved
// with 0.05 to 2.4 times the probe's move, and in a run spent in the slower state the probe took
// 1.33-1.50x its usual time while the steps took 1.0-1.6x theirs (docs/performance.md, "How far the
// probe follows each cell").
bool probe_moved_between_host_states(double probe_ratio) {
  return probe_ratio > kSlowMachineFactor || probe_ratio < 1.0 / kSlowMachineFactor;
}

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kImproved:
      return "improved";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kRegressed:
      return "regressed";
    case Verdict::kMissing:
      return "missing";
    case Verdict::kNotCompared:
      return "not compared";
  }
  return "unknown";
}

CheckResult check_reports(const ReportComparison& comparison, const CheckOptions& options) {
  require_judging_options(options);
  CheckResult result;
  for (const auto& cell : comparison.cells) {
    result.cells.push_back(check_cell(cell, options));
    const auto verdict = result.cells.back().verdict;
    if (verdict == Verdict::kRegressed) ++result.regressed;
    if (verdict == Verdict::kInconclusive) ++result.inconclusive;
    if (cell.comparable && !cell.normalised_rounds) ++result.compared_by_steps;
    if (verdict == Verdict::kNotCompared) ++result.missing;
  }
  for (const auto& key : comparison.only_in_base)
    result.cells.push_back({key, Verdict::kMissing, {MissingReason{true}}});
  for (const auto& key : comparison.only_in_current)
    result.cells.push_back({key, Verdict::kMissing, {MissingReason{false}}});
  result.missing += static_cast<int>(comparison.only_in_base.size() + comparison.only_in_current.size());
  result.passed = result.regressed == 0 && !(options.strict && result.missing > 0);
  return result;
}

}  // namespace ampbench::reports
