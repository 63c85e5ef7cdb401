// `ampbench compare A.json B.json`: cell by cell, the change in median step time with its interval,
// a Mann-Whitney U test on the samples, and the memory and divergence changes. Judges nothing
// (that is `check`), so it exits 0 whenever both files could be read.
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

#include "ampbench/reports/check.h"
#include "ampbench/reports/compare.h"
#include "ampbench/reports/report_json.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {
namespace {

struct CompareFlags {
  std::string baseline;
  std::string current;
  std::string format = "table";
  std::string out;
};

int compare(const CompareFlags& flags) {
  const auto base = load_report_input(flags.baseline, "compare");
  const auto current = load_report_input(flags.current, "compare");
  const auto comparison = reports::compare_reports(base, current);
  const std::string text = flags.format == "json"
                               ? reports::json_text(reports::comparison_to_json(comparison), 2) + "\n"
                           : flags.format == "markdown" ? reports::render_comparison_markdown(comparison)
                                                        : reports::render_comparison_table(comparison);
  for (const auto& mismatch : reports::environment_mismatches(base, current)) {
    std::cerr << "note: the reports differ: " << mismatch << "\n";
  }
  if (flags.out.empty()) {
    print_to_stdout(text);
  } else {
    write_output_file(flags.out, text, "--out");
  }
  return kExitSuccess;
}

}  // namespace

Action add_compare_command(CLI::App& app) {
  auto* command = app.add_subcommand("compare", "Compare two reports (or Google Benchmark JSON files) cell by cell");
  auto flags = std::make_shared<CompareFlags>();
  command->add_option("baseline", flags->baseline, "The report to compare against")->required();
  command->add_option("current", flags->current, "The report to compare")->required();
  command->add_option("--format", flags->format, "table (default), markdown or json")
      ->check(CLI::IsMember({"table", "markdown", "json"}));
  command->add_option("--out", flags->out, "Write the comparison to FILE instead of stdout");
  return [flags] { return with_input_errors_as_usage_errors([&flags] { return compare(*flags); }); };
}

}  // namespace ampbench::cli
