// `ampbench explain REPORT.json [--cell workload/mode] [--format table|markdown|json]`: why AMP did
// or did not pay in each cell of an existing report, from what it measured (reports/explain.h).
// The findings are computed again from the report's data, so they follow the current rules.
#include <memory>

#include <nlohmann/json.hpp>

#include "ampbench/reports/explain.h"
#include "ampbench/reports/report_json.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {
namespace {

struct ExplainFlags {
  std::string input;
  std::string cell;
  std::string format = "table";
};

int explain(const ExplainFlags& flags) {
  const auto run = load_report_input(flags.input, "explain");
  const auto findings = reports::findings_for(reports::explain(run), flags.cell);
  if (findings.empty() && !flags.cell.empty()) {
    throw UsageError(
        "--cell " + flags.cell + ": no AMP cell of " + flags.input +
        " starts with it (cells are named workload/mode/device/preset, then /ranks=N on more than one rank)");
  }
  if (flags.format == "json") {
    print_to_stdout(reports::json_text(nlohmann::json(findings), 2) + "\n");
  } else if (flags.format == "markdown") {
    print_to_stdout(reports::render_why_markdown(findings));
  } else {
    print_to_stdout(findings.empty() ? "No AMP cell to explain.\n" : reports::render_why_text(findings));
  }
  return kExitSuccess;
}

}  // namespace

Action add_explain_command(CLI::App& app) {
  auto* command = app.add_subcommand("explain", "Why AMP did or did not pay in each cell of a report, with figures");
  auto flags = std::make_shared<ExplainFlags>();
  command->add_option("report", flags->input, "report.json written by 'ampbench run'")->required();
  command->add_option("--cell", flags->cell, "Only the cells whose name starts with this (e.g. transformer/bf16)");
  command->add_option("--format", flags->format, "table (default), markdown or json")
      ->check(CLI::IsMember({"table", "markdown", "json"}));
  return [flags] { return with_input_errors_as_usage_errors([&flags] { return explain(*flags); }); };
}

}  // namespace ampbench::cli
