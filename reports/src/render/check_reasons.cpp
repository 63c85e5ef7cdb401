// check's reasons in words (check_reason.h): every rendering of check and compare prints these.
#include <string>
#include <vector>

#include "ampbench/reports/check_reason.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/text_format.h"
#include "render/format.h"

namespace ampbench::reports {
namespace {

using detail::format_general;
using detail::format_p_value;

// What the test compared: worker processes when the runs had several, else rounds.
std::string draws_text(const RoundsFigures& figures) {
  const auto& test = figures.per_probe;
  const auto rounds = std::to_string(figures.base_rounds) + " vs " + std::to_string(figures.current_rounds) + " rounds";
  if (test.base_draws == figures.base_rounds && test.current_draws == figures.current_rounds) return rounds;
  return std::to_string(test.base_draws) + " vs " + std::to_string(test.current_draws) + " worker processes, " + rounds;
}

std::string figures_text(const RoundsFigures& figures) {
  std::string text = "step time per machine probe " + detail::format_change_ci(figures.per_probe.ratio) + ", p " +
                     format_p_value(figures.per_probe.p_value) + " (" + draws_text(figures) + ")";
  if (figures.raw_ratio && figures.probe_ratio) {
    text += "; raw " + format_percent(*figures.raw_ratio - 1.0, true) + ", machine probe " +
            format_percent(*figures.probe_ratio - 1.0, true);
  }
  return text;
}

std::string figures_text(const StepsFigures& figures) {
  return "step time " + detail::format_change_ci(figures.ratio) + " (" +
         detail::format_duration(figures.base_median_s) + " -> " + detail::format_duration(figures.current_median_s) +
         "), U test p " + format_p_value(figures.p_value);
}

std::string host_state_text(const RoundsFigures& figures) {
  return ": the machine probe took " + detail::format_ratio(figures.probe_ratio.value_or(1.0)) +
         " its baseline time, beyond the " + detail::format_ratio(kSlowMachineFactor) +
         " that marks the host's other state: one run spent all its rounds there, and the step time per probe "
         "cannot tell the machine's change from the code's (rerun both on a steady machine)";
}

std::string outcome_text(const StepTimeReason& reason) {
  switch (reason.outcome) {
    case StepTimeOutcome::kRegressed:
      return " < alpha " + format_general(reason.alpha) + ", beyond the " + format_percent(reason.threshold, false) +
             " threshold";
    case StepTimeOutcome::kFaster:
      return ": faster";
    case StepTimeOutcome::kNotSignificant:
      return ": beyond the threshold but not significant";
    case StepTimeOutcome::kUnresolved:
      return ": beyond the threshold, but the runs' own noise cannot resolve it";
    case StepTimeOutcome::kRawChangedLess:
      return ": beyond the threshold per machine probe, but the raw step time changed less (the probe moved the "
             "other way)";
    case StepTimeOutcome::kMachineChange:
      return ": the machine's change, not the code's";
    case StepTimeOutcome::kHostState:
      return host_state_text(std::get<RoundsFigures>(reason.figures));
  }
  return "";
}

std::string text_of(const StepTimeReason& reason) {
  const auto figures = std::visit([](const auto& f) { return figures_text(f); }, reason.figures);
  return figures + outcome_text(reason);
}

std::string text_of(const TooFewSamplesReason& reason) {
  return "too few samples (" + std::to_string(reason.base_steps) + " vs " + std::to_string(reason.current_steps) +
         ") for the U test to reach p < " + format_general(reason.alpha);
}

std::string text_of(const ProbesDifferReason& reason) { return reason.probes + ": compared step by step"; }

std::string text_of(const MemoryReason& reason) {
  return "peak memory " + format_percent(reason.growth, true) + " (" + detail::format_bytes(reason.base_bytes) +
         " -> " + detail::format_bytes(reason.current_bytes) + "), beyond the " +
         format_percent(reason.threshold, false) + " threshold";
}

std::string text_of(const EnergyReason& reason) {
  const bool significant = reason.change.p_value < reason.alpha;
  return "energy per step " + detail::format_change_ci(reason.change.ratio) + " (p " +
         format_p_value(reason.change.p_value) + "), beyond the " + format_percent(reason.threshold, false) +
         " threshold" + (significant ? "" : ", within the runs' own noise");
}

std::string text_of(const ThrottledReason& reason) {
  std::string causes;
  for (const auto& cause : reason.causes) causes += (causes.empty() ? "" : ", ") + cause;
  return std::string(reason.in_baseline ? "the baseline's" : "the current") + " rounds ran mostly throttled (" +
         std::to_string(reason.throttled_rounds) + " of " + std::to_string(reason.rounds) +
         (causes.empty() ? "" : ": " + causes) + "): its step time is the throttled GPU's, not judged";
}

std::string text_of(const DivergenceReason& reason) {
  const std::string baseline = reason.baseline ? std::string(to_string(*reason.baseline)) : "none";
  if (reason.verdict == DivergenceVerdict::kNonFiniteLoss) return "non-finite loss (baseline: " + baseline + ")";
  const std::string figures = "eval loss " + detail::format_small_fraction(reason.relative_difference) + " from " +
                              reason.reference_mode + ", noise floor " + detail::format_small_fraction(reason.floor) +
                              " (" + format_general(reason.ratio_to_floor) + "x)";
  if (reason.tolerance) return figures + ", beyond --max-divergence " + format_percent(*reason.tolerance, false);
  return figures + ": " + std::string(to_string(reason.verdict)) + " (baseline: " + baseline + ")";
}

std::string text_of(const NonFiniteGradNormReason& reason) {
  return "gradient norm not finite at step " + std::to_string(reason.step) +
         ", a step the optimizer took (no GradScaler skipped it)";
}

std::string text_of(const NotComparableReason& reason) { return reason.note; }

std::string text_of(const RerunReason& reason) { return "figures include a rerun (" + reason.rerun + ")"; }

std::string text_of(const MissingReason& reason) {
  return reason.in_baseline ? "only in the baseline" : "only in the current report";
}

const char* id_of(const StepTimeReason& reason) {
  switch (reason.outcome) {
    case StepTimeOutcome::kRegressed:
      return "step_time_regressed";
    case StepTimeOutcome::kFaster:
      return "step_time_faster";
    case StepTimeOutcome::kNotSignificant:
      return "step_time_not_significant";
    case StepTimeOutcome::kUnresolved:
      return "step_time_unresolved";
    case StepTimeOutcome::kRawChangedLess:
      return "step_time_raw_changed_less";
    case StepTimeOutcome::kMachineChange:
      return "step_time_machine_change";
    case StepTimeOutcome::kHostState:
      return "step_time_host_state";
  }
  return "step_time";
}
const char* id_of(const TooFewSamplesReason&) { return "too_few_samples"; }
const char* id_of(const ProbesDifferReason&) { return "probes_differ"; }
const char* id_of(const MemoryReason&) { return "memory"; }
const char* id_of(const EnergyReason&) { return "energy"; }
const char* id_of(const ThrottledReason&) { return "throttled"; }
const char* id_of(const DivergenceReason&) { return "divergence"; }
const char* id_of(const NonFiniteGradNormReason&) { return "non_finite_grad_norm"; }
const char* id_of(const NotComparableReason&) { return "not_comparable"; }
const char* id_of(const RerunReason&) { return "rerun"; }
const char* id_of(const MissingReason&) { return "missing"; }

}  // namespace

const char* reason_id(const CheckReason& reason) {
  return std::visit([](const auto& typed) { return id_of(typed); }, reason);
}

std::string describe_reason(const CheckReason& reason) {
  return std::visit([](const auto& typed) { return text_of(typed); }, reason);
}

std::vector<std::string> describe_reasons(const std::vector<CheckReason>& reasons) {
  std::vector<std::string> out;
  out.reserve(reasons.size());
  for (const auto& reason : reasons) out.push_back(describe_reason(reason));
  return out;
}

}  // namespace ampbench::reports
