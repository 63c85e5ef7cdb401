// `ampbench check --baseline BASE.json --current CUR.json`: the CI gate. Exit 0 on pass, 1 when a
// cell regressed (significant and beyond its threshold), 2 on bad input, including reports from
// different hardware or precision settings unless --allow-env-mismatch.
#include <memory>

#include "ampbench/reports/check.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {
namespace {

struct CheckFlags {
  std::string baseline;
  std::string current;
  std::string max_slowdown = "5%";
  std::string max_memory_growth = "5%";
  std::string max_divergence;
  std::string alpha = "0.01";
  bool strict = false;
  bool allow_env_mismatch = false;
  std::string markdown;
};

reports::CheckOptions options_from(const CheckFlags& flags) {
  reports::CheckOptions options;
  options.max_slowdown = parse_fraction(flags.max_slowdown, "--max-slowdown");
  options.max_memory_growth = parse_fraction(flags.max_memory_growth, "--max-memory-growth");
  if (!flags.max_divergence.empty()) options.max_divergence = parse_fraction(flags.max_divergence, "--max-divergence");
  options.alpha = parse_number_in(flags.alpha, "--alpha", 0.0, 0.5);
  options.strict = flags.strict;
  return options;
}

int check(const CheckFlags& flags) {
  const auto options = options_from(flags);
  const auto base = load_report_input(flags.baseline, "--baseline");
  const auto current = load_report_input(flags.current, "--current");
  if (const auto mismatches = reports::environment_mismatches(base, current);
      !mismatches.empty() && !flags.allow_env_mismatch) {
    throw UsageError("the reports come from different environments (" + mismatches.front() +
                     (mismatches.size() > 1 ? ", and " + std::to_string(mismatches.size() - 1) + " more" : "") +
                     "); pass --allow-env-mismatch to check them anyway");
  }
  const auto result = reports::check_reports(reports::compare_reports(base, current), options);
  if (!flags.markdown.empty())
    write_output_file(flags.markdown, reports::render_check_markdown(result, options), "--md");
  print_to_stdout(reports::render_check_text(result, options));
  return result.passed ? kExitSuccess : kExitRegression;
}

}  // namespace

Action add_check_command(CLI::App& app) {
  auto* command = app.add_subcommand("check", "Fail (exit 1) when the current report regressed against the baseline");
  auto flags = std::make_shared<CheckFlags>();
  command->add_option("--baseline", flags->baseline, "The accepted report (or Google Benchmark JSON)")->required();
  command->add_option("--current", flags->current, "The report to judge")->required();
  command->add_option("--max-slowdown", flags->max_slowdown,
                      "Largest acceptable median step-time increase (default 5%)");
  command->add_option("--max-memory-growth", flags->max_memory_growth,
                      "Largest acceptable peak-memory increase (default 5%)");
  command->add_option("--max-divergence", flags->max_divergence,
                      "Largest acceptable mean relative loss difference from FP32 over the final steps "
                      "(default: fail when the divergence verdict got worse)");
  command->add_option("--alpha", flags->alpha,
                      "Significance level of the statistical tests, above 0 and at most 0.5 (default 0.01)");
  command->add_flag("--strict", flags->strict, "Also fail when cells are missing from either report");
  command->add_flag("--allow-env-mismatch", flags->allow_env_mismatch,
                    "Check reports from different hardware or precision settings anyway");
  command->add_option("--md", flags->markdown, "Also write the verdict as Markdown to FILE (for $GITHUB_STEP_SUMMARY)");
  return [flags] { return with_input_errors_as_usage_errors([&flags] { return check(*flags); }); };
}

}  // namespace ampbench::cli
