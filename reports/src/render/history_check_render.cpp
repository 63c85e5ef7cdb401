// The history check's verdicts (history_verdicts.h) in words: for the terminal, a job summary and
// programs. Figures in reasons are relative changes, printed with their sign.
#include <algorithm>
#include <cctype>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/history_verdicts.h"
#include "ampbench/reports/text_format.h"
#include "io/json_number.h"
#include "render/html_page.h"
#include "render/markdown_table.h"

namespace ampbench::reports {
namespace {

std::string percent(double fraction) { return format_percent(fraction, true); }

std::string text_of(const HistoryStepTimeReason& reason) {
  std::ostringstream text;
  text << reason.figure << " " << percent(reason.change) << " against the last " << reason.runs << " runs, p "
       << std::setprecision(2) << reason.p_value;
  if (reason.raw_change) text << "; raw " << percent(*reason.raw_change);
  switch (reason.outcome) {
    case HistoryOutcome::kSignificant:
      break;
    case HistoryOutcome::kWithinSpread:
      text << ": not beyond the history's spread";
      break;
    case HistoryOutcome::kRawOtherWay:
      text << ": the raw step time moved the other way";
      break;
    case HistoryOutcome::kRawWithin:
      text << ": the raw step time moved by less than the threshold";
      break;
  }
  return text.str();
}

std::string text_of(const ProbeSlopeReason& reason) {
  std::ostringstream text;
  text << "step_time_s at its probe " << percent(reason.change) << " against the last " << reason.runs
       << " runs (the step follows the probe with slope " << std::fixed << std::setprecision(2) << reason.slope
       << " over them), p " << std::defaultfloat << std::setprecision(2) << reason.p_value << "; per probe "
       << percent(reason.per_probe_change) << ", raw " << percent(reason.raw_change);
  if (!reason.significant) text << ": not beyond the history's spread";
  return text.str();
}

std::string text_of(const HostStateReason& reason) {
  std::ostringstream text;
  text << reason.figure << " " << percent(reason.change) << ", raw " << percent(reason.raw_change)
       << " against the last " << reason.runs << " runs: the machine probe took " << std::fixed << std::setprecision(2)
       << reason.probe_ratio << "x its time in them, beyond the " << kSlowMachineFactor
       << "x that marks the host's other state: this run spent all its rounds there, and the step time per probe "
          "cannot tell the machine's change from the code's (run again)";
  return text.str();
}

std::string text_of(const LeftOutRunsReason& reason) {
  std::ostringstream text;
  text << reason.runs << " run(s) of the history left out: their machine probe took over " << std::fixed
       << std::setprecision(2) << kSlowMachineFactor << "x (or under 1/" << kSlowMachineFactor
       << ") the median of the runs around them, another state of the host";
  return text.str();
}

std::string text_of(const TooFewRunsReason& reason) {
  return "only " + std::to_string(reason.runs) + " runs of step_time_s since its last change point (needs " +
         std::to_string(reason.needed) + ")";
}

std::string text_of(const FailedCellReason& reason) {
  return reason.history_ran ? "failed; the history's runs ran it" : "failed, and failed or absent in the history too";
}

std::string text_of(const MemoryGrowthReason& reason) {
  return "peak tensor memory " + percent(reason.growth) + " over the history's median";
}

std::string text_of(const NewDivergenceReason& reason) {
  std::ostringstream text;
  text << "diverged (" << std::setprecision(3) << reason.ratio_to_floor
       << " noise floors) where no run of the history did";
  return text.str();
}

std::vector<std::string> texts(const std::vector<HistoryReason>& reasons) {
  std::vector<std::string> out;
  for (const auto& reason : reasons) out.push_back(std::visit([](const auto& r) { return text_of(r); }, reason));
  return out;
}

// "fail", "needs confirmation" or "pass": the run's verdict, as its exit code says it (1, 4, 0).
std::string overall_verdict(const HistoryCheckResult& result) {
  return result.regressed > 0 ? "fail" : result.needs_confirmation > 0 ? "needs confirmation" : "pass";
}

std::string summary_line(const HistoryCheckResult& result) {
  auto verdict = overall_verdict(result);
  std::transform(verdict.begin(), verdict.end(), verdict.begin(), [](unsigned char c) { return std::toupper(c); });
  std::string line = verdict + ": " + std::to_string(result.regressed) + " of " + std::to_string(result.cells.size()) +
                     " cells regressed against the history of testbed " + result.testbed.name;
  if (result.needs_confirmation > 0) {
    line += ", " + std::to_string(result.needs_confirmation) +
            " would regress: run the suite again and pass both reports (--rerun)";
  }
  return line;
}

// "one run flags ... by cell" over the cells whose step time was judged; empty when none was.
std::string resolution_line(const HistoryCheckResult& result) {
  std::vector<double> flagged;
  std::vector<double> caught;
  for (const auto& cell : result.cells) {
    if (!cell.resolution) continue;
    flagged.push_back(cell.resolution->flags_beyond);
    caught.push_back(cell.resolution->caught_from);
  }
  if (flagged.empty()) return "";
  const auto range = [](const std::vector<double>& values) {
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    return *low == *high ? percent(*low) : percent(*low) + " to " + percent(*high);
  };
  return "one run is flagged for a step-time slowdown beyond " + range(flagged) +
         " against this history, by cell (9 runs in 10 from " + range(caught) + ")\n";
}

// cell | verdict | history runs | step time | flagged beyond (9 in 10 from) | why: one row per cell.
detail::Table verdict_table(const HistoryCheckResult& result) {
  detail::Table table({"cell", "verdict", "history runs", "step time", "flagged beyond (9 in 10 from)", "why"});
  for (const auto& cell : result.cells) {
    const auto& resolution = cell.resolution;
    table.add_row({cell.cell, to_string(cell.verdict), std::to_string(cell.history_runs),
                   resolution ? percent(*cell.step_time_change) : "",
                   resolution ? percent(resolution->flags_beyond) + " (" + percent(resolution->caught_from) + ")" : "",
                   describe_reasons(cell)});
  }
  return table;
}

// A note when the run was judged by name against a testbed of other facts; empty otherwise.
std::string differing_facts_line(const HistoryCheckResult& result) {
  if (result.differing_facts.empty()) return "";
  return other_facts_note(result.testbed.name, result.differing_facts) +
         ": its history may not describe this run's machine\n";
}

}  // namespace

const char* to_string(HistoryVerdict verdict) {
  switch (verdict) {
    case HistoryVerdict::kUnchanged:
      return "unchanged";
    case HistoryVerdict::kImproved:
      return "improved";
    case HistoryVerdict::kInconclusive:
      return "inconclusive";
    case HistoryVerdict::kRegressed:
      return "regressed";
    case HistoryVerdict::kNeedsConfirmation:
      return "needs confirmation";
    case HistoryVerdict::kNotCompared:
      return "not compared";
  }
  return "?";
}

std::string describe_reasons(const HistoryCellCheck& cell) {
  auto out = texts(cell.reasons);
  if (cell.rerun == RerunOutcome::kNotConfirmed) out.emplace_back("not confirmed by the rerun");
  if (cell.rerun == RerunOutcome::kConfirmed) {
    out.push_back("confirmed by the rerun: " + joined(texts(cell.rerun_reasons), "; "));
  }
  return joined(out, "; ");
}

std::string render_history_check_text(const HistoryCheckResult& result) {
  std::string out = differing_facts_line(result);
  for (const auto& cell : result.cells) {
    const auto reason = describe_reasons(cell);
    if (cell.verdict == HistoryVerdict::kUnchanged && reason.empty()) continue;
    out += cell.cell + ": " + to_string(cell.verdict) + (reason.empty() ? "" : " (" + reason + ")") + "\n";
  }
  return out + resolution_line(result) + summary_line(result) + "\n";
}

std::string render_history_check_markdown(const HistoryCheckResult& result) {
  return "### ampbench history check\n\n**" + summary_line(result) + "**\n\n" +
         (result.differing_facts.empty() ? "" : differing_facts_line(result) + "\n") + resolution_line(result) + "\n" +
         detail::markdown_table(verdict_table(result));
}

std::string render_history_check_html(const HistoryCheckResult& result) {
  std::string page = detail::html_page_head("ampbench history check") + "<p class=\"verdict\" data-verdict=\"" +
                     overall_verdict(result) + "\"><strong>" + detail::html_escaped(summary_line(result)) +
                     "</strong></p>\n";
  for (auto line : {differing_facts_line(result), resolution_line(result)}) {
    if (line.empty()) continue;
    line.pop_back();  // the line's own newline
    page += "<p class=\"note\">" + detail::html_escaped(line) + "</p>\n";
  }
  return page + detail::html_table("history-check", verdict_table(result)) + "</body>\n</html>\n";
}

std::string render_history_check_json(const HistoryCheckResult& result) {
  nlohmann::json facts = nlohmann::json::object();
  for (const auto& [name, value] : result.testbed.facts) facts[name] = value;
  auto differing = nlohmann::json::array();
  for (const auto& difference : result.differing_facts) {
    differing.push_back(
        {{"fact", difference.fact}, {"testbed", difference.testbed_value}, {"run", difference.run_value}});
  }
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& cell : result.cells) {
    const auto resolution = [&cell](double StepTimeResolution::*figure) {
      return cell.resolution ? nlohmann::json((*cell.resolution).*figure) : nlohmann::json(nullptr);
    };
    cells.push_back({{"cell", cell.cell},
                     {"verdict", to_string(cell.verdict)},
                     {"reason", describe_reasons(cell)},
                     {"history_runs", cell.history_runs},
                     {"step_time_change", detail::json_optional(cell.step_time_change)},
                     {"flags_beyond", resolution(&StepTimeResolution::flags_beyond)},
                     {"caught_from", resolution(&StepTimeResolution::caught_from)}});
  }
  const nlohmann::json out = {
      {"verdict", overall_verdict(result)},
      {"regressed", result.regressed},
      {"needs_confirmation", result.needs_confirmation},
      {"testbed", {{"name", result.testbed.name}, {"fingerprint", result.testbed.fingerprint}, {"facts", facts}}},
      {"differing_facts", differing},
      {"cells", cells}};
  return out.dump(2) + "\n";
}

}  // namespace ampbench::reports
