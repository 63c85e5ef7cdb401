// `ampbench check --baseline BASE.json --current CUR.json`: the CI gate. Exit 0 on pass, 1 when a
// cell regressed (significant and beyond its threshold), 2 on bad input, including reports from
// different hardware or precision settings unless --allow-env-mismatch, or of different world sizes
// (--ranks) unless --allow-different-ranks. --format json prints the verdicts for a program; --md
// and --html write them for a job summary and the comparison page for a reviewer.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ampbench/reports/run_series.h"
#include "check_thresholds.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {
namespace {

struct CheckFlags {
  std::string baseline;
  std::string current;
  ThresholdFlags thresholds;
  bool strict = false;
  bool allow_env_mismatch = false;
  bool allow_different_ranks = false;
  std::string format = "text";
  std::string markdown;
  std::string html;
};

// "simple_net/fp32/cpu/default and 5 more": the cells of one of the series' runs, for an error line.
std::string cells_of(const reports::RunSeries& series, std::size_t run) {
  std::vector<std::string> names;
  for (const auto& cell : series.cells) {
    if (series.cell_at(cell, run) != nullptr) names.push_back(cell.key.label());
  }
  if (names.empty()) return "no cell";
  return names.front() + (names.size() > 1 ? " and " + std::to_string(names.size() - 1) + " more" : "");
}

int check(const CheckFlags& flags) {
  require_text_or_json(flags.format);
  auto options = check_options_from(flags.thresholds);
  options.strict = flags.strict;
  std::vector<reports::SeriesInput> runs;
  runs.push_back({flags.baseline, load_report_input(flags.baseline, "--baseline")});
  runs.push_back({flags.current, load_report_input(flags.current, "--current")});
  require_same_world_size(runs, flags.allow_different_ranks);
  if (const auto mismatches = reports::environment_mismatches(runs[0].report, runs[1].report);
      !mismatches.empty() && !flags.allow_env_mismatch) {
    throw UsageError("the reports come from different environments (" + mismatches.front() +
                     (mismatches.size() > 1 ? ", and " + std::to_string(mismatches.size() - 1) + " more" : "") +
                     "); pass --allow-env-mismatch to check them anyway");
  }
  const auto series = reports::build_run_series(std::move(runs), options);
  const auto& result = series.checks[1];
  // A gate that judged nothing must not pass: reports of two different suites share no cell.
  if (std::all_of(result.cells.begin(), result.cells.end(),
                  [](const reports::CellCheck& cell) { return cell.verdict == reports::Verdict::kMissing; })) {
    throw UsageError("the reports share no cell (" + cells_of(series, 0) + " in --baseline, " + cells_of(series, 1) +
                     " in --current): nothing to judge");
  }
  write_output_files(
      {{"--md", flags.markdown, flags.markdown.empty() ? "" : reports::render_check_markdown(result, options)},
       {"--html", flags.html, flags.html.empty() ? "" : reports::render_series_html(series, true)}});
  print_to_stdout(flags.format == "json" ? reports::render_check_json(result, options)
                                         : reports::render_check_text(result, options));
  return result.passed ? kExitSuccess : kExitRegression;
}

}  // namespace

Action add_check_command(CLI::App& app) {
  auto* command = app.add_subcommand("check", "Fail (exit 1) when the current report regressed against the baseline");
  auto flags = std::make_shared<CheckFlags>();
  command->add_option("--baseline", flags->baseline, "The accepted report (or Google Benchmark JSON)")->required();
  command->add_option("--current", flags->current, "The report to judge")->required();
  add_threshold_options(*command, flags->thresholds);
  command->add_flag("--strict", flags->strict, "Also fail when cells are missing from either report");
  command->add_flag("--allow-env-mismatch", flags->allow_env_mismatch,
                    "Check reports from different hardware or precision settings anyway");
  add_allow_different_ranks_flag(*command, flags->allow_different_ranks);
  command->add_option("--format", flags->format,
                      "text or json (the verdicts for a program; the exit code is the same)");
  command->add_option("--md", flags->markdown, "Also write the verdict as Markdown to FILE (for $GITHUB_STEP_SUMMARY)");
  command->add_option("--html", flags->html,
                      "Also write the comparison page (HTML, self-contained) with the gate's verdicts to FILE");
  return [flags] { return with_input_errors_as_usage_errors([&flags] { return check(*flags); }); };
}

}  // namespace ampbench::cli
