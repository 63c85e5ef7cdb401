// The regression rules of check.h: significant and beyond the threshold, or it passes.
#include "ampbench/reports/check.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "format.h"

namespace ampbench::reports {
namespace {

using detail::format_p_value;
using detail::format_percent;

std::string percent_interval(const Ratio& ratio) {
  return format_percent(ratio.value - 1.0, true) + " [" + format_percent(ratio.ci_low - 1.0, true) + ", " +
         format_percent(ratio.ci_high - 1.0, true) + "]";
}

// The smallest two-sided p-value the exact U test can give for these sizes: 2 / C(n1 + n2, n1).
double smallest_exact_p(std::int64_t n1, std::int64_t n2) {
  const auto real = [](std::int64_t value) { return static_cast<double>(value); };
  const double log_choose =
      std::lgamma(real(n1 + n2) + 1.0) - std::lgamma(real(n1) + 1.0) - std::lgamma(real(n2) + 1.0);
  return 2.0 * std::exp(-log_choose);
}

// What the test compared: worker processes when the runs had several, else rounds.
std::string draws_text(const CellComparison& cell) {
  const auto& normalised = *cell.normalised_rounds;
  const auto rounds = std::to_string(cell.base_rounds) + " vs " + std::to_string(cell.current_rounds) + " rounds";
  if (normalised.base_draws == cell.base_rounds && normalised.current_draws == cell.current_rounds) return rounds;
  return std::to_string(normalised.base_draws) + " vs " + std::to_string(normalised.current_draws) +
         " worker processes, " + rounds;
}

std::string rounds_figures(const CellComparison& cell) {
  const auto& normalised = *cell.normalised_rounds;
  std::string text = "step time per machine probe " + percent_interval(normalised.ratio) + ", p " +
                     format_p_value(normalised.p_value) + " (" + draws_text(cell) + ")";
  if (cell.raw_rounds && cell.probe_rounds) {
    text += "; raw " + format_percent(cell.raw_rounds->ratio.value - 1.0, true) + ", machine probe " +
            format_percent(cell.probe_rounds->ratio.value - 1.0, true);
  }
  return text;
}

// A step-time change is a regression (or an improvement) only when it is significant and beyond
// the threshold. Beyond it but unresolved by the runs' noise: by rounds, the verdict
// "inconclusive" (passes, listed); by steps (older reports), a note.
void judge_step_time(double change, bool significant, const std::string& figures, bool by_rounds,
                     const CheckOptions& options, CellCheck& check) {
  if (significant && change > options.max_slowdown) {
    check.verdict = "regressed";
    check.reasons.push_back(figures + " < alpha " + detail::format_general(options.alpha) + ", beyond the " +
                            format_percent(options.max_slowdown, false) + " threshold");
  } else if (significant && change < -options.max_slowdown) {
    if (check.verdict == "pass") check.verdict = "improved";
    check.reasons.push_back(figures + ": faster");
  } else if (std::fabs(change) > options.max_slowdown && by_rounds) {
    if (check.verdict == "pass") check.verdict = "inconclusive";
    check.reasons.push_back(figures + ": beyond the threshold, but the runs' own noise cannot resolve it");
  } else if (std::fabs(change) > options.max_slowdown) {
    check.reasons.push_back(figures + ": beyond the threshold but not significant");
  }
}

void check_step_time(const CellComparison& cell, const CheckOptions& options, CellCheck& check) {
  // Round by round, each round divided by its machine probe, Welch's t test on the logs.
  if (cell.normalised_rounds) {
    const auto& normalised = *cell.normalised_rounds;
    judge_step_time(normalised.ratio.value - 1.0, normalised.p_value < options.alpha, rounds_figures(cell), true,
                    options, check);
    return;
  }
  const std::string figures =
      "step time " + percent_interval(cell.time_ratio) + " (" + detail::format_duration(cell.base_time.median) +
      " -> " + detail::format_duration(cell.current_time.median) + "), U test p " + format_p_value(cell.u_test.p_value);
  judge_step_time(cell.time_ratio.value - 1.0, cell.u_test.p_value < options.alpha, figures, false, options, check);
  const auto n1 = cell.base_time.count;
  const auto n2 = cell.current_time.count;
  if (std::min(n1, n2) <= kExactUTestMaxSize && smallest_exact_p(n1, n2) >= options.alpha) {
    check.reasons.push_back("too few samples (" + std::to_string(n1) + " vs " + std::to_string(n2) +
                            ") for the U test to reach p < " + detail::format_general(options.alpha));
  }
}

void check_memory(const CellComparison& cell, const CheckOptions& options, CellCheck& check) {
  if (!cell.memory_ratio || *cell.memory_ratio - 1.0 <= options.max_memory_growth) return;
  check.verdict = "regressed";
  check.reasons.push_back("peak memory " + format_percent(*cell.memory_ratio - 1.0, true) + " (" +
                          detail::format_bytes(cell.base_peak_bytes) + " -> " +
                          detail::format_bytes(cell.current_peak_bytes) + "), beyond the " +
                          format_percent(options.max_memory_growth, false) + " threshold");
}

void check_divergence(const CellComparison& cell, const CheckOptions& options, CellCheck& check) {
  if (!cell.current_divergence) return;
  const Divergence& current = *cell.current_divergence;
  const std::string base_verdict = cell.base_divergence ? cell.base_divergence->verdict : "none";
  const std::string figures = "loss divergence " + format_percent(current.window_mean_relative_difference, true) +
                              " over the final " + std::to_string(current.window) + " steps, p " +
                              format_p_value(current.p_value);
  bool regressed = false;
  if (current.verdict == "non-finite loss") {
    regressed = base_verdict != "non-finite loss";
  } else if (options.max_divergence) {
    regressed =
        current.p_value < options.alpha && std::fabs(current.window_mean_relative_difference) > *options.max_divergence;
  } else {
    regressed = current.verdict == "diverged" && base_verdict == "within bound";
  }
  if (!regressed) return;
  check.verdict = "regressed";
  check.reasons.push_back(current.verdict == "non-finite loss" ? "non-finite loss (baseline: " + base_verdict + ")"
                          : options.max_divergence
                              ? figures + ", beyond --max-divergence " + format_percent(*options.max_divergence, false)
                              : figures + ": " + current.verdict + " (baseline: " + base_verdict + ")");
}

void check_grad_norm(const CellComparison& cell, CellCheck& check) {
  if (!cell.current_nonfinite_grad_norm_step) return;
  check.verdict = "regressed";
  check.reasons.push_back("gradient norm not finite at step " + std::to_string(*cell.current_nonfinite_grad_norm_step) +
                          ", a step the optimizer took (no GradScaler skipped it)");
}

CellCheck check_cell(const CellComparison& cell, const CheckOptions& options) {
  CellCheck check{cell.key, "pass", {}};
  if (!cell.comparable) {
    const bool failed_now = cell.note.rfind("failed in current", 0) == 0;
    check.verdict = failed_now ? "regressed" : "not compared";
    check.reasons.push_back(cell.note);
    return check;
  }
  check_step_time(cell, options, check);
  check_memory(cell, options, check);
  check_divergence(cell, options, check);
  check_grad_norm(cell, check);
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
  if (options.max_divergence) require_threshold(*options.max_divergence, "max_divergence");
}

}  // namespace

CheckResult check_reports(const ReportComparison& comparison, const CheckOptions& options) {
  require_judging_options(options);
  CheckResult result;
  for (const auto& cell : comparison.cells) {
    result.cells.push_back(check_cell(cell, options));
    if (result.cells.back().verdict == "regressed") ++result.regressed;
    if (result.cells.back().verdict == "inconclusive") ++result.inconclusive;
    if (cell.comparable && !cell.normalised_rounds) ++result.compared_by_steps;
    if (result.cells.back().verdict == "not compared") ++result.missing;
  }
  for (const auto& key : comparison.only_in_base) result.cells.push_back({key, "missing", {"only in the baseline"}});
  for (const auto& key : comparison.only_in_current)
    result.cells.push_back({key, "missing", {"only in the current report"}});
  result.missing += static_cast<int>(comparison.only_in_base.size() + comparison.only_in_current.size());
  result.passed = result.regressed == 0 && !(options.strict && result.missing > 0);
  return result;
}

}  // namespace ampbench::reports
