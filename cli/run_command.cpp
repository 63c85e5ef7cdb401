// `ampbench run`: parses the settings (flags over a --config file over the defaults, all through
// reports' one RunConfig field table), asks the harness to plan and run them, prints progress to
// stderr and a table to stdout, and writes DIR/report.json, report.md and report.html. Exit 1 when
// any cell failed (the reports still have the rest).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "ampbench/harness/run.h"
#include "ampbench/reports/atomic_file.h"
#include "ampbench/reports/html.h"
#include "ampbench/reports/markdown.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/run_config.h"
#include "ampbench/reports/table.h"
#include "ampbench/workloads/preset.h"
#include "commands.h"
#include "exit_codes.h"
#include "report_inputs.h"
#include "run_progress.h"

namespace ampbench::cli {
namespace {

struct RunFlags {
  std::vector<std::pair<const reports::RunConfigField*, std::string>> settings;  // in command-line order
  std::optional<std::string> config_file;
  std::optional<std::string> out;
};

constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;  // a settings file is a few hundred bytes

// The --config file: a JSON object of settings (the keys of run_config_fields, plus "out").
reports::RunConfig read_settings(const RunFlags& flags, std::filesystem::path& out) {
  if (!flags.config_file) return reports::layer_run_config(nullptr, "", flags.settings);
  const auto& file = *flags.config_file;
  std::string text;
  try {
    text = reports::read_text_file(file, kMaxConfigBytes);
  } catch (const reports::ReportError& error) {
    throw UsageError("--config " + file + ": cannot read the file (" + error.what() + ")");
  }
  nlohmann::json values;
  try {
    values = reports::parse_json_text(text, file);
  } catch (const reports::ReportError& error) {
    throw UsageError(std::string("--config ") + error.what());
  }
  if (values.is_object() && values.contains("out")) {
    if (!values["out"].is_string()) throw UsageError("--config " + file + ": 'out' must be a string");
    out = values["out"].get<std::string>();
    values.erase("out");
  }
  return reports::layer_run_config(&values, file, flags.settings);
}

// The report is written at the end; make sure it can be before spending minutes measuring. This
// tries for real (permission bits say nothing to root) and removes whatever it created, so a run
// that fails later leaves nothing behind.
void require_writable_out(const std::filesystem::path& out) {
  const auto absolute = std::filesystem::absolute(out);
  auto first_missing = absolute;
  while (!std::filesystem::exists(first_missing.parent_path()) && first_missing.has_parent_path() &&
         first_missing.parent_path() != first_missing) {
    first_missing = first_missing.parent_path();
  }
  const bool existed = std::filesystem::exists(absolute);
  std::error_code error;
  if (existed && !std::filesystem::is_directory(absolute))
    throw UsageError("--out " + out.string() + ": not a directory");
  if (!existed && !std::filesystem::create_directories(absolute, error)) {
    throw UsageError("--out " + out.string() + ": cannot create the directory (" + error.message() + ")");
  }
  const auto probe = absolute / (".ampbench-write-probe-" + std::to_string(getpid()));
  const bool writable = static_cast<bool>(std::ofstream(probe));
  std::filesystem::remove(probe, error);
  if (!existed) std::filesystem::remove_all(first_missing, error);
  if (!writable) throw UsageError("--out " + out.string() + ": not writable");
}

// Before any cell runs: whether out existed, once the three reports are known to be writable there
// (a report.md that is a directory must fail now, not after the suite). Any filesystem error, such
// as a folder name longer than NAME_MAX (255 bytes), is bad input naming --out, not an internal one.
bool prepare_out(const std::filesystem::path& out, const std::vector<std::filesystem::path>& targets) {
  try {
    const bool existed = std::filesystem::exists(out);
    require_writable_out(out);
    std::filesystem::create_directories(out);
    reports::check_writable_targets(targets);
    return existed;
  } catch (const std::filesystem::filesystem_error& error) {
    throw UsageError("--out " + out.string() + ": " + error.code().message());
  } catch (const reports::ReportError& error) {
    throw UsageError(std::string("--out ") + error.what());
  }
}

int run(const RunFlags& flags) {
  std::filesystem::path out = "ampbench-out";
  auto config = read_settings(flags, out);
  if (flags.out) out = *flags.out;
  const auto plan = harness::plan_run(std::move(config));
  if (plan.torchrun && plan.torchrun->rank != 0) {
    // Rank 0 writes the report; this rank trains its part of each group and sends its cells there.
    const auto failed = harness::follow_rank_zero(plan, [](const std::string& line) { std::cerr << line << "\n"; });
    std::cerr << "rank " << plan.torchrun->rank << " of " << plan.torchrun->world_size
              << ": done; the report is rank 0's\n";
    return failed > 0 ? kExitRegression : kExitSuccess;
  }
  const std::vector<std::filesystem::path> targets{out / "report.json", out / "report.md", out / "report.html"};
  const bool out_existed = prepare_out(out, targets);
  const auto report = [&] {
    try {
      return harness::run(plan, stderr_progress(isatty(STDERR_FILENO) != 0, plan.preset_choice));
    } catch (const std::exception&) {
      // Bad input found only once the run starts (a rendezvous that fails): nothing left behind.
      std::error_code ignored;
      if (!out_existed) std::filesystem::remove_all(out, ignored);
      throw;
    }
  }();
  // All three or none: a disk filling at the HTML must not leave a new report.json beside old files.
  reports::write_files_atomically({{targets[0], reports::report_to_text(report)},
                                   {targets[1], reports::render_markdown(report)},
                                   {targets[2], reports::render_html(report)}});
  print_to_stdout(reports::render_table(report));
  std::cerr << "reports: " << targets[0].string() << ", report.md, report.html\n";
  const bool any_failed = std::any_of(report.cells.begin(), report.cells.end(),
                                      [](const auto& cell) { return cell.status != reports::CellStatus::kOk; });
  return any_failed ? kExitRegression : kExitSuccess;
}

// The report keeps a preset as a name, so reports cannot list them: the list is the workloads'.
std::string help_of(const reports::RunConfigField& field) {
  if (field.key != "preset") return field.help;
  return field.help + ": " + workloads::kAutoPreset +
         " (the device's: " + workloads::to_string(workloads::preset_for_device(false)) + " on a CPU, " +
         workloads::to_string(workloads::preset_for_device(true)) + " on CUDA), " + workloads::preset_choices() +
         " (see 'ampbench list')";
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "run", "Train the suite's cells under each mode; write DIR/report.json, report.md, report.html");
  auto flags = std::make_shared<RunFlags>();
  const reports::RunConfig defaults;
  for (const auto& field : reports::run_config_fields()) {
    if (field.flag.empty()) continue;
    if (field.flag_turns_off) {
      command->add_flag_callback(
          field.flag, [flags, &field] { flags->settings.emplace_back(&field, "false"); }, help_of(field));
      continue;
    }
    const auto shown = field.show(defaults);
    command->add_option_function<std::string>(
        field.flag, [flags, &field](const std::string& text) { flags->settings.emplace_back(&field, text); },
        help_of(field) + (shown.empty() ? "" : " (default " + shown + ")"));
  }
  std::string keys;
  for (const auto& field : reports::run_config_fields()) keys += field.file_key + ", ";
  command->add_option_function<std::string>(
      "--config", [flags](const std::string& file) { flags->config_file = file; },
      "JSON file with any of these settings (keys: " + keys + "out); flags override it");
  command->add_option_function<std::string>(
      "--out", [flags](const std::string& out) { flags->out = out; },
      "Output directory for report.json, report.md, report.html (default ampbench-out)");
  return [flags] { return run(*flags); };
}

}  // namespace ampbench::cli
