// The check's verdict as text for the terminal and CI log, as Markdown for a job summary, and as
// JSON for programs.
#include <nlohmann/json.hpp>

#include "ampbench/reports/check.h"
#include "io/json_number.h"
#include "render/format.h"
#include "render/markdown_table.h"

namespace ampbench::reports {

std::string describe_check_options(const CheckOptions& options) {
  std::string text = "max slowdown " + format_percent(options.max_slowdown, false) + ", max memory growth " +
                     format_percent(options.max_memory_growth, false) + ", max energy growth " +
                     format_percent(options.max_energy_growth, false);
  if (options.max_divergence) text += ", max divergence " + format_percent(*options.max_divergence, false);
  return text + ", alpha " + detail::format_general(options.alpha) + (options.strict ? ", strict" : "");
}

std::string check_summary_line(const CheckResult& result, const CheckOptions& options) {
  std::string line = std::string(result.passed ? "PASS" : "FAIL") + ": " + std::to_string(result.regressed) + " of " +
                     std::to_string(result.cells.size()) + " cells regressed";
  if (result.inconclusive > 0) {
    line += ", " + std::to_string(result.inconclusive) + " inconclusive (beyond the threshold within the noise)";
  }
  if (result.missing > 0) {
    line += ", " + std::to_string(result.missing) + " missing or not compared" +
            (options.strict ? "" : " (not failing without --strict)");
  }
  line += " (" + describe_check_options(options) + ")";
  if (result.compared_by_steps > 0) {
    line += "\n" + std::to_string(result.compared_by_steps) +
            " cells compared step by step with the U test (a report without interleaved rounds, or with another "
            "machine probe, from an older ampbench): that cannot tell machine drift from a code change";
  }
  return line;
}

namespace {

// Regressions first: they are what the reader of a failed CI job is looking for; then what the
// gate could not decide.
constexpr Verdict kVerdictOrder[] = {Verdict::kRegressed,   Verdict::kInconclusive, Verdict::kMissing,
                                     Verdict::kNotCompared, Verdict::kImproved,     Verdict::kPass};

}  // namespace

std::string render_check_text(const CheckResult& result, const CheckOptions& options) {
  std::string out;
  for (const auto verdict : kVerdictOrder) {
    for (const auto& cell : result.cells) {
      if (cell.verdict != verdict) continue;
      const std::string label = verdict == Verdict::kRegressed ? "REGRESSED" : to_string(verdict);
      out += label + "  " + cell.key.label() + "\n";
      for (const auto& reason : cell.reasons) out += "    " + detail::one_line(describe_reason(reason), 400) + "\n";
    }
  }
  return out + check_summary_line(result, options) + "\n";
}

std::string render_check_markdown(const CheckResult& result, const CheckOptions& options) {
  detail::Table table({"cell", "verdict", "details"});
  for (const auto verdict : kVerdictOrder) {
    for (const auto& cell : result.cells) {
      if (cell.verdict != verdict) continue;
      table.add_row({cell.key.label(), verdict == Verdict::kRegressed ? "**regressed**" : to_string(verdict),
                     joined(describe_reasons(cell.reasons), "; ")});
    }
  }
  return std::string("### ampbench check: ") + (result.passed ? "PASS" : "FAIL") + "\n\n" +
         detail::markdown_table(table) + "\n" + check_summary_line(result, options) + "\n";
}

std::string render_check_json(const CheckResult& result, const CheckOptions& options) {
  auto cells = nlohmann::json::array();
  for (const auto verdict : kVerdictOrder) {
    for (const auto& cell : result.cells) {
      if (cell.verdict != verdict) continue;
      auto reasons = nlohmann::json::array();
      for (const auto& reason : cell.reasons)
        reasons.push_back({{"id", reason_id(reason)}, {"text", describe_reason(reason)}});
      cells.push_back({{"cell", cell.key.label()}, {"verdict", to_string(verdict)}, {"reasons", reasons}});
    }
  }
  const nlohmann::json thresholds = {{"max_slowdown", detail::json_number(options.max_slowdown)},
                                     {"max_memory_growth", detail::json_number(options.max_memory_growth)},
                                     {"max_energy_growth", detail::json_number(options.max_energy_growth)},
                                     {"max_divergence", detail::json_optional(options.max_divergence)},
                                     {"alpha", detail::json_number(options.alpha)},
                                     {"strict", options.strict}};
  const nlohmann::json out = {{"schema", "ampbench.check/1"},  {"verdict", result.passed ? "pass" : "fail"},
                              {"regressed", result.regressed}, {"inconclusive", result.inconclusive},
                              {"missing", result.missing},     {"compared_by_steps", result.compared_by_steps},
                              {"thresholds", thresholds},      {"cells", cells}};
  return out.dump(2) + "\n";
}

}  // namespace ampbench::reports
