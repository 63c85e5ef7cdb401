// `ampbench report RUN.json [--md FILE] [--html FILE]`: the terminal table of a finished run, and
// its Markdown (for a CI job summary) and self-contained HTML renderings.
#include <iostream>
#include <memory>

#include "ampbench/reports/html.h"
#include "ampbench/reports/markdown.h"
#include "ampbench/reports/table.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {
namespace {

struct ReportFlags {
  std::string input;
  std::string markdown;
  std::string html;
};

int report(const ReportFlags& flags) {
  const auto run = load_report_input(flags.input, "report");
  // Render everything before writing anything: a failure leaves no partial set of files.
  const std::string markdown = flags.markdown.empty() ? "" : reports::render_markdown(run);
  const std::string html = flags.html.empty() ? "" : reports::render_html(run);
  if (!flags.markdown.empty()) write_output_file(flags.markdown, markdown, "--md");
  if (!flags.html.empty()) write_output_file(flags.html, html, "--html");
  std::cout << reports::render_table(run);
  return kExitSuccess;
}

}  // namespace

Action add_report_command(CLI::App& app) {
  auto* command = app.add_subcommand("report", "Print a run's table and write its Markdown and HTML reports");
  auto flags = std::make_shared<ReportFlags>();
  command->add_option("run", flags->input, "report.json written by 'ampbench run'")->required();
  command->add_option("--md", flags->markdown, "Write the report as Markdown (fits $GITHUB_STEP_SUMMARY) to FILE");
  command->add_option("--html", flags->html, "Write the report as one self-contained HTML page with charts to FILE");
  return [flags] { return report(*flags); };
}

}  // namespace ampbench::cli
