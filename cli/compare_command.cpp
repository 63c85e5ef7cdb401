// `ampbench compare BASE.json CUR.json [MORE.json ...]`: cell by cell, each run against the first
// (the baseline): step times with their intervals, the change with its interval and the verdict
// check's rules give it, speedups, memory and divergence; with more than two, the trend over the
// runs. As a table, Markdown or JSON on stdout (or --out), and --md / --html files. Judges nothing
// for the exit code (that is `check`): 0 whenever the reports could be read. Reports of different
// world sizes (--ranks) are refused unless --allow-different-ranks.
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "ampbench/reports/report_json.h"
#include "ampbench/reports/run_series.h"
#include "check_thresholds.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {
namespace {

struct CompareFlags {
  std::vector<std::string> reports;
  std::string format = "table";
  std::string out;
  std::string markdown;
  std::string html;
  std::string order = "given";
  ThresholdFlags thresholds;
  bool allow_different_ranks = false;
};

// The same file under two names is refused before anything is read: its "change" would be zero.
void require_distinct(const std::vector<std::string>& paths) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      std::error_code error;
      if (paths[i] == paths[j] || std::filesystem::equivalent(paths[i], paths[j], error)) {
        throw UsageError("compare: " + paths[i] + " is given twice (reports " + std::to_string(j + 1) + " and " +
                         std::to_string(i + 1) + ")");
      }
    }
  }
}

int compare(const CompareFlags& flags) {
  const auto options = check_options_from(flags.thresholds);
  if (flags.reports.size() < 2) {
    throw UsageError("compare: needs at least two reports (a baseline and one to compare with it), got " +
                     std::to_string(flags.reports.size()));
  }
  require_distinct(flags.reports);
  std::vector<reports::SeriesInput> runs;
  for (const auto& path : flags.reports) runs.push_back({path, load_report_input(path, "compare")});
  require_same_world_size(runs, flags.allow_different_ranks);
  const auto series = reports::build_run_series(std::move(runs), options, flags.order == "time");
  const std::string text = flags.format == "json"       ? reports::json_text(reports::series_to_json(series), 2) + "\n"
                           : flags.format == "markdown" ? reports::render_series_markdown(series)
                                                        : reports::render_series_table(series);
  write_output_files({{"--out", flags.out, text},
                      {"--md", flags.markdown, flags.markdown.empty() ? "" : reports::render_series_markdown(series)},
                      {"--html", flags.html, flags.html.empty() ? "" : reports::render_series_html(series)}});
  if (flags.out.empty()) print_to_stdout(text);
  return kExitSuccess;
}

}  // namespace

Action add_compare_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "compare", "Compare two or more reports (or Google Benchmark JSON files) cell by cell against the first");
  auto flags = std::make_shared<CompareFlags>();
  command->add_option("reports", flags->reports, "The baseline report, then one or more to compare with it")
      ->required();
  command->add_option("--format", flags->format, "table (default), markdown or json")
      ->check(CLI::IsMember({"table", "markdown", "json"}));
  command->add_option("--out", flags->out, "Write the comparison to FILE instead of stdout");
  command->add_option("--md", flags->markdown, "Also write the comparison as Markdown to FILE");
  command->add_option("--html", flags->html, "Also write the comparison page (HTML, self-contained, charts) to FILE");
  command->add_option("--order", flags->order, "Order of the runs in the trend: given (default) or time (start time)")
      ->check(CLI::IsMember({"given", "time"}));
  add_threshold_options(*command, flags->thresholds);
  add_allow_different_ranks_flag(*command, flags->allow_different_ranks);
  return [flags] { return with_input_errors_as_usage_errors([&flags] { return compare(*flags); }); };
}

}  // namespace ampbench::cli
