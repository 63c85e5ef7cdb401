// `ampbench run`: trains the suite's cells, prints progress to stderr and a table to stdout, and
// writes DIR/report.json, DIR/report.md and DIR/report.html, each atomically. Exit 1 when any cell
// failed (the reports still have the rest).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "ampbench/harness/environment_probe.h"
#include "ampbench/harness/gemm_peak.h"
#include "ampbench/harness/suite.h"
#include "ampbench/reports/atomic_file.h"
#include "ampbench/reports/html.h"
#include "ampbench/reports/markdown.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/table.h"
#include "commands.h"
#include "exit_codes.h"
#include "run_options.h"

namespace ampbench::cli {
namespace {

// On a terminal a progress line overwrites the previous one; in a CI log only finished cells show.
harness::ProgressPrinter stderr_progress() {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  return [terminal](const std::string& line, bool replace_previous) {
    if (terminal) {
      std::cerr << "\r\033[K" << line << (replace_previous ? "" : "\n") << std::flush;
    } else if (!replace_previous) {
      std::cerr << line << "\n";
    }
  };
}

// The roofline, measured in this process before the cells, with the threads they will use.
void measure_gemm_peaks(const reports::RunConfig& config, reports::Environment& environment,
                        const harness::ProgressPrinter& print) {
  print("measuring the GEMM peak on " + config.device + " ...", true);
  const auto start = std::chrono::steady_clock::now();
  environment.gemm_peaks = harness::measure_gemm_peaks(config.device, config.threads);
  char line[128];
  std::snprintf(line, sizeof line, "GEMM peak on %s measured in %.2f s", config.device.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  print(line, false);
}

int run(const RunFlags& flags) {
  auto environment = harness::probe_environment();
  const auto options = resolve_run_options(flags, environment);
  if (options.config.threads > 0) environment.threads = options.config.threads;
  const auto progress = stderr_progress();
  measure_gemm_peaks(options.config, environment, progress);
  const auto report = harness::run_suite(options.config, environment, progress);
  std::filesystem::create_directories(options.out);
  const auto report_path = options.out / "report.json";
  reports::write_report_atomically(report, report_path);
  reports::write_file_atomically(options.out / "report.md", reports::render_markdown(report));
  reports::write_file_atomically(options.out / "report.html", reports::render_html(report));
  std::cout << reports::render_table(report);
  std::cerr << "reports: " << report_path.string() << ", report.md, report.html\n";
  const bool any_failed =
      std::any_of(report.cells.begin(), report.cells.end(), [](const auto& cell) { return cell.status != "ok"; });
  return any_failed ? kExitRegression : kExitSuccess;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "run", "Train the suite's cells under each mode; write DIR/report.json, report.md, report.html");
  auto flags = std::make_shared<RunFlags>();
  const auto option = [&](auto& field, const char* name, const char* help) {
    command->add_option_function<typename std::decay_t<decltype(field)>::value_type>(
        name, [&field](const auto& value) { field = value; }, help);
  };
  option(flags->workloads, "--workloads", "Comma-separated workloads (default: all; see 'ampbench list')");
  option(flags->modes, "--modes", "Comma-separated modes (default: fp32,fp16,bf16; on a GPU also tf32)");
  option(flags->device, "--device", "auto, cpu, cuda or cuda:N (default: auto = first GPU, else CPU)");
  option(flags->preset, "--preset", "seed (the tutorials' sizes), default (the CPU suite) or large (GPUs)");
  option(flags->steps, "--steps", "Most timed steps per cell (default 500)");
  option(flags->min_steps, "--min-steps", "Fewest timed steps before the noise target may stop a cell (default 10)");
  option(flags->warmup, "--warmup", "Untimed warm-up steps per cell (default 3)");
  option(flags->max_noise, "--max-noise",
         "Stop a cell once the median's 95% CI half-width is within this fraction (default 0.02)");
  option(flags->time_cap_s, "--time-cap", "Seconds of timed steps per cell at most (default 6)");
  option(flags->seed, "--seed", "Seed of the initial weights, the teacher and the data (default 0)");
  option(flags->threads, "--threads", "Intra-op CPU threads (default: LibTorch's choice)");
  option(flags->batch, "--batch", "Batch size for every workload, overriding the preset");
  option(flags->config_file, "--config",
         "JSON file with any of these settings (keys: workloads, modes, device, preset, "
         "steps, min_steps, warmup, max_noise, time_cap_s, seed, threads, batch, out, "
         "isolate); flags override it");
  option(flags->out, "--out", "Output directory for report.json (default ampbench-out)");
  command->add_flag("--no-isolate", flags->no_isolate, "Run cells in this process (debugging; a crash ends the run)");
  return [flags] { return run(*flags); };
}

}  // namespace ampbench::cli
