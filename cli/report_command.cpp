// `ampbench report RUN.json [--md FILE] [--html FILE]`: the terminal table of a finished run, and
// its Markdown (for a CI job summary) and self-contained HTML renderings.
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
  // Render everything, then write the files as a set: a failure leaves no partial set of files.
  write_output_files({{"--md", flags.markdown, flags.markdown.empty() ? "" : reports::render_markdown(run)},
                      {"--html", flags.html, flags.html.empty() ? "" : reports::render_html(run)}});
  print_to_stdout(reports::render_table(run));
  return kExitSuccess;
}

}  // namespace

Action add_report_command(CLI::App& app) {
  auto* command = app.add_subcommand("report", "Print a run's table and write its Markdown and HTML reports");
  auto flags = std::make_shared<ReportFlags>();
  command->add_option("run", flags->input, "report.json written by 'ampbench run'")->required();
  command->add_option("--md", flags->markdown, "Write the report as Markdown (fits $GITHUB_STEP_SUMMARY) to FILE");
  command->add_option("--html", flags->html, "Write the report as one self-contained HTML page with charts to FILE");
  return [flags] { return with_input_errors_as_usage_errors([&flags] { return report(*flags); }); };
}

}  // namespace ampbench::cli
