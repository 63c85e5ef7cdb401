#include "ampbench/harness/suite.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "ampbench/harness/cell_runner.h"
#include "ampbench/harness/isolated_cell.h"
#include "ampbench/harness/mode.h"
#include "ampbench/reports/roofline.h"
#include "ampbench/reports/stats.h"

namespace ampbench::harness {
namespace {

// FP32 first within each workload, so a reader of the progress sees the reference before AMP.
std::vector<std::string> ordered_modes(std::vector<std::string> modes) {
  std::stable_partition(modes.begin(), modes.end(), [](const std::string& mode) { return mode == "fp32"; });
  return modes;
}

CellSpec spec_for(const reports::RunConfig& config, const std::string& workload, const std::string& mode) {
  CellSpec spec;
  spec.workload = workload;
  spec.mode = mode;
  spec.device = config.device;
  spec.preset = config.preset;
  spec.warmup = config.warmup;
  spec.min_steps = config.min_steps;
  spec.max_steps = config.max_steps;
  spec.max_noise = config.max_noise;
  spec.time_cap_s = config.time_cap_s;
  spec.seed = static_cast<std::uint64_t>(config.seed);
  spec.threads = config.threads;
  spec.batch = config.batch;
  return spec;
}

std::string progress_line(std::size_t index, std::size_t total, const CellSpec& spec, const CellProgress& progress,
                          double remaining_cells_cap_s) {
  // The ETA is an upper bound: the time caps left, since a cell may stop early on precision.
  const double eta = std::max(0.0, progress.time_cap_s - progress.timed_elapsed_s) + remaining_cells_cap_s;
  char text[256];
  std::snprintf(text, sizeof text, "[%zu/%zu] %s %s %s: step %lld (%lld timed, %.1f s), ETA <= %.0f s", index + 1,
                total, spec.workload.c_str(), spec.mode.c_str(), spec.device.c_str(),
                static_cast<long long>(progress.step), static_cast<long long>(progress.timed_steps),
                progress.timed_elapsed_s, eta);
  return text;
}

}  // namespace

void relate_to_fp32(reports::Report& report) {
  for (auto& cell : report.cells) {
    if (cell.status != "ok" || cell.mode == "fp32") continue;
    const auto reference = std::find_if(report.cells.begin(), report.cells.end(), [&](const auto& other) {
      return other.mode == "fp32" && other.status == "ok" && other.workload == cell.workload &&
             other.device == cell.device && other.preset == cell.preset;
    });
    if (reference == report.cells.end()) continue;
    cell.speedup_vs_fp32 = reports::median_ratio(reference->step_times_s, cell.step_times_s);
    const double memory_ratio = static_cast<double>(cell.memory.peak_tensor_bytes) /
                                static_cast<double>(std::max<std::int64_t>(1, reference->memory.peak_tensor_bytes));
    cell.memory_ratio_vs_fp32 = reports::Ratio{memory_ratio, memory_ratio, memory_ratio};
    cell.divergence =
        reports::compute_divergence(reference->losses, cell.losses, find_mode(cell.mode).divergence_bound);
  }
}

reports::Report run_suite(const reports::RunConfig& config, reports::Environment environment,
                          const ProgressPrinter& print) {
  reports::Report report;
  report.environment = std::move(environment);
  report.config = config;
  std::vector<CellSpec> specs;
  for (const auto& workload : config.workloads) {
    for (const auto& mode : ordered_modes(config.modes)) specs.push_back(spec_for(config, workload, mode));
  }
  const auto executable = current_executable();
  for (std::size_t index = 0; index < specs.size(); ++index) {
    const auto& spec = specs[index];
    const double remaining_cap = static_cast<double>(specs.size() - index - 1) * spec.time_cap_s;
    const ProgressSink sink = [&](const CellProgress& progress) {
      if (print) print(progress_line(index, specs.size(), spec, progress, remaining_cap), true);
    };
    auto result = config.isolate ? run_cell_isolated(spec, executable, sink) : run_cell(spec, sink);
    if (print) {
      print("[" + std::to_string(index + 1) + "/" + std::to_string(specs.size()) + "] " + spec.workload + " " +
                spec.mode + " " + spec.device + ": " +
                (result.status == "ok" ? result.throughput.stop_reason : "FAILED: " + result.error),
            false);
    }
    report.cells.push_back(std::move(result));
  }
  relate_to_fp32(report);
  reports::fill_fractions_of_peak(report);
  return report;
}

}  // namespace ampbench::harness
