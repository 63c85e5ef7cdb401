#include "render/summary_rows.h"

#include <algorithm>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/roofline.h"
#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

// An unavailable peak's reason is cut to this many columns: it shares a line with the others.
constexpr std::size_t kPeakReasonWidth = 60;

std::string divergence_text(const std::optional<Divergence>& divergence) {
  if (!divergence) return kNone;
  const std::string verdict(to_string(divergence->verdict));
  if (divergence->verdict == DivergenceVerdict::kNonFiniteLoss) return verdict;
  return verdict + " (" + detail::format_small_fraction(divergence->final_relative_difference) + " vs floor " +
         detail::format_small_fraction(divergence->final_floor) + ")";
}

// The mean minor faults per timed step ("6.5k"), with the major ones when there were any.
std::string faults_text(const std::optional<PageFaults>& faults) {
  if (!faults) return kNone;
  const auto minor = mean_per_step(faults->minor);
  const auto major = mean_per_step(faults->major);
  std::string text = format_count(minor);
  if (major > 0.0) text += " (" + format_count(major) + " major)";
  return text;
}

}  // namespace

double mean_per_step(const std::vector<std::int64_t>& counts) {
  if (counts.empty()) return 0.0;
  double total = 0.0;
  for (const auto count : counts) total += static_cast<double>(count);
  return total / static_cast<double>(counts.size());
}

bool with_ranks_column(const Report& report) {
  return std::any_of(report.cells.begin(), report.cells.end(), [](const CellResult& cell) { return cell.ranks > 1; });
}

std::vector<std::string> cell_name_header(bool with_ranks) {
  std::vector<std::string> header = {"workload", "mode", "device"};
  if (with_ranks) header.emplace_back("ranks");
  return header;
}

std::vector<std::string> cell_name_columns(const CellResult& cell, bool with_ranks) {
  std::vector<std::string> columns = {cell.workload, cell.mode, cell.device};
  if (with_ranks) columns.push_back(std::to_string(cell.ranks));
  return columns;
}

std::string cell_name(const CellResult& cell) {
  auto key = key_of(cell);
  key.preset.clear();
  return key.label();
}

double timed_step_seconds(const CellResult& cell) {
  return cell.rounds ? cell.rounds->step_time.value : cell.throughput.step_time_s.median;
}

SummaryColumns summary_columns(const Report& report) {
  const bool gpu = std::any_of(report.cells.begin(), report.cells.end(),
                               [](const CellResult& cell) { return cell.device.rfind("cuda:", 0) == 0; });
  const bool energy =
      std::any_of(report.cells.begin(), report.cells.end(), [](const CellResult& cell) { return cell.energy; });
  return {with_ranks_column(report), gpu, energy};
}

std::vector<std::string> summary_header(SummaryColumns columns) {
  auto header = cell_name_header(columns.ranks);
  header.insert(header.end(), {"step time (95% CI)", "speedup vs fp32", "% of peak"});
  if (columns.mfu) header.emplace_back("MFU");
  header.insert(header.end(), {"peak memory", "memory vs fp32"});
  if (columns.energy) header.insert(header.end(), {"energy/step (95% CI)", "energy vs fp32"});
  header.insert(header.end(), {kDivergenceColumn, "skipped steps", "faults/step"});
  return header;
}

SummaryRow summary_row(const CellResult& cell, SummaryColumns columns) {
  SummaryRow row;
  row.cells = cell_name_columns(cell, columns.ranks);
  if (cell.status != CellStatus::kOk) {
    row.failed = true;
    row.error = cell.error.empty() ? "no error recorded" : cell.error;
    return row;
  }
  // Over rounds when the cell has them: the interval a rerun would fall in, not the steps' spread.
  row.cells.push_back(cell.rounds
                          ? format_duration_interval(cell.rounds->step_time.value, cell.rounds->step_time.ci_low,
                                                     cell.rounds->step_time.ci_high)
                          : format_duration_ci(cell.throughput.step_time_s));
  row.cells.push_back(cell.speedup_vs_fp32 ? format_ratio_ci(*cell.speedup_vs_fp32) : kNone);
  row.cells.push_back(cell.throughput.fraction_of_peak ? format_share(*cell.throughput.fraction_of_peak) : kNone);
  if (columns.mfu) row.cells.push_back(cell.throughput.mfu ? format_share(*cell.throughput.mfu) : kNone);
  row.cells.push_back(format_bytes(cell.memory.peak_tensor_bytes));
  row.cells.push_back(cell.memory_ratio_vs_fp32 ? format_ratio(cell.memory_ratio_vs_fp32->value) : kNone);
  if (columns.energy) {
    const auto& energy = cell.energy;
    row.cells.push_back(energy ? format_energy_interval(energy->joules_per_step.value, energy->joules_per_step.ci_low,
                                                        energy->joules_per_step.ci_high)
                               : kNone);
    row.cells.push_back(cell.energy_ratio_vs_fp32 ? format_ratio_ci(*cell.energy_ratio_vs_fp32) : kNone);
  }
  row.cells.push_back(divergence_text(cell.divergence));
  row.cells.push_back(cell.scaler ? std::to_string(cell.scaler->skipped_steps.size()) : kNone);
  row.cells.push_back(faults_text(cell.page_faults));
  return row;
}

std::string gemm_peak_value(const GemmPeak& peak) {
  if (peak.status != MeasurementStatus::kMeasured) return "unavailable: " + one_line(peak.reason, kPeakReasonWidth);
  if (!peak.versus_float32) return format_flop_rate(peak.flops_per_s);
  const auto size = peak.versus_float32->matrix_size;
  const std::string at = size > 0 ? " at " + format_square_size(size) : "";
  return format_flop_rate(peak.flops_per_s) + " (" + format_ratio_ci(peak.versus_float32->speed) + " float32's speed" +
         at + ")";
}

std::string gemm_peaks_note(const Environment& environment) {
  std::string out;
  const std::string* device = nullptr;
  for (const auto& peak : environment.gemm_peaks) {
    // The device once, before its first peak: a run measures one device.
    const bool new_device = device == nullptr || *device != peak.device;
    out += (out.empty() ? "" : new_device ? "; " : ", ") + (new_device ? peak.device + " " : "");
    out += peak.dtype + " " + gemm_peak_value(peak);
    device = &peak.device;
  }
  return out.empty() ? out : "GEMM peak (at::mm, measured by this run): " + out;
}

std::string mfu_note(const Report& report) {
  std::vector<std::string> reasons;
  const DatasheetPeaks* peaks = nullptr;
  for (const auto& cell : report.cells) {
    const auto reason = why_no_mfu(report.environment, cell);
    if (!reason.empty() && std::find(reasons.begin(), reasons.end(), reason) == reasons.end())
      reasons.push_back(reason);
    if (cell.throughput.mfu && peaks == nullptr) peaks = datasheet_peaks_of(report.environment, cell);
  }
  std::string out;
  if (peaks != nullptr) {
    out = "MFU: achieved FLOP/s over " + peaks->chip + "'s datasheet dense peak (float32 " +
          format_flop_rate(peaks->float32) + ", tfloat32 " + format_flop_rate(peaks->tfloat32) + ", float16 " +
          format_flop_rate(peaks->float16) + ", bfloat16 " + format_flop_rate(peaks->bfloat16) + ")";
  }
  if (!reasons.empty()) out += (out.empty() ? "No MFU: " : "; no MFU: ") + joined(reasons, "; ");
  return out.empty() ? out : out + ".";
}

std::string failed_cells_note(const Report& report) {
  const auto failed = std::count_if(report.cells.begin(), report.cells.end(),
                                    [](const CellResult& cell) { return cell.status != CellStatus::kOk; });
  if (failed == 0) return "";
  return std::to_string(failed) + " of " + std::to_string(report.cells.size()) + " cells failed.";
}

std::string counted_flops_note(const Report& report) {
  std::vector<std::string> workloads;
  for (const auto& cell : report.cells) {
    if (cell.throughput.flops_source == FlopSource::kCounted &&
        std::find(workloads.begin(), workloads.end(), cell.workload) == workloads.end())
      workloads.push_back(cell.workload);
  }
  if (workloads.empty()) return "";
  return "FLOPs per step counted by ampbench (3x one forward's matrix products, convolutions and attention; the "
         "workload states none): " +
         joined(workloads, ", ") + ".";
}

std::string allocator_note(const Environment& environment) {
  if (!environment.allocator) return "";
  const auto& allocator = *environment.allocator;
  std::string note = "Allocator: " + allocator.policy + " (" + allocator.version + ", " + allocator.library + "; " +
                     allocator.settings + ")";
  if (allocator.page_fault_s > 0.0) note += "; a minor page fault costs " + format_duration(allocator.page_fault_s);
  return note + ". faults/step: the worker's page faults per timed step, every thread.";
}

std::string reruns_note(const Report& report) {
  std::vector<std::string> parts;
  for (const auto& rerun : report.reruns) {
    parts.push_back(rerun.workload + (rerun.ranks > 1 ? " on " + std::to_string(rerun.ranks) + " ranks" : "") +
                    ", worker " + std::to_string(rerun.replicate + 1) + " (" + joined(rerun.modes, ", ") +
                    " together): " + rerun.reason + "; ran again alone: " + joined(rerun.rerun_modes, ", "));
  }
  if (parts.empty()) return "";
  return "Reruns (these cells mix rounds timed together and alone): " + joined(parts, "; ") + ".";
}

std::string slow_machine_note(const Report& report) {
  const CellResult* ruled = nullptr;
  std::vector<std::string> slow;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || !cell.rounds || !cell.rounds->slow_machine_factor) continue;
    if (ruled == nullptr) ruled = &cell;
    const auto& rounds = *cell.rounds;
    if (!cell.speedup_vs_fp32 || rounds.slow_machine_rounds == 0) continue;
    const auto total = static_cast<std::int64_t>(rounds.step_time_s.size());
    slow.push_back(
        cell_name(cell) + " " + std::to_string(rounds.slow_machine_rounds) + " of " + std::to_string(total) +
        (total - rounds.slow_machine_rounds < 2 ? " (all kept: the speedup describes the slower state)" : ""));
  }
  if (ruled == nullptr) return "";
  return "Machine probe: " + ruled->rounds->probe +
         ", timed in every round. Speedups leave out the rounds in which it " + "took over " +
         format_ratio(*ruled->rounds->slow_machine_factor) +
         " the run's usual time (the machine in a slower state): " + (slow.empty() ? "none did" : joined(slow, ", ")) +
         ".";
}

std::string gpu_verification_note(const Report& report) {
  const bool any_gpu = std::any_of(report.cells.begin(), report.cells.end(),
                                   [](const CellResult& cell) { return cell.device.rfind("cuda", 0) == 0; });
  if (!any_gpu || report.environment.gpu_verification.empty()) return "";
  return "Note: " + report.environment.gpu_verification;
}

std::string machine_line(const Report& report) {
  const auto& env = report.environment;
  std::string line = env.cpu_model + " (" + env.cpu_capability + ", " + std::to_string(env.threads) + " threads)";
  for (const auto& device : env.devices) {
    if (device.name != "cpu") line += " · " + device.name + " " + device.model;
  }
  line += " · torch " + env.torch_version;
  if (!env.torch_cuda_version.empty()) line += " (CUDA " + env.torch_cuda_version + ")";
  if (env.allocator) line += " · allocator " + env.allocator->policy;
  line += " · ampbench " + env.ampbench_version + " (" + env.git_revision + ") · " + env.timestamp_utc;
  if (!report.config.preset.empty()) line += " · preset " + report.config.preset;
  return line;
}

}  // namespace ampbench::reports::detail
