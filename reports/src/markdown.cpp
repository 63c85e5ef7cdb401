#include "ampbench/reports/markdown.h"

#include "ampbench/reports/stats.h"
#include "format.h"
#include "markdown_table.h"
#include "summary_rows.h"

namespace ampbench::reports {
namespace {

// The roofline the "% of peak" column reads against, with how each peak was measured.
std::string gemm_peaks(const Environment& environment) {
  std::string lines;
  for (const auto& peak : environment.gemm_peaks) {
    lines += peak.device + " " + peak.dtype + ": " + detail::gemm_peak_value(peak);
    lines += peak.status == "measured" ? " (" + peak.method + ")\n" : "\n";
  }
  if (lines.empty()) return "";
  return "GEMM peak on this machine (at::mm, measured by this run; not the datasheet figure):\n\n" +
         detail::markdown_list(lines) + "\n";
}

std::string summary_table(const Report& report) {
  detail::MarkdownTable table(detail::summary_header());
  for (const auto& cell : report.cells) {
    auto row = detail::summary_row(cell);
    if (row.failed) row.cells.push_back("**failed**");
    table.add_row(std::move(row.cells));
  }
  return table.render();
}

std::string failed_cells(const Report& report) {
  std::string out;
  for (const auto& cell : report.cells) {
    if (cell.status == CellStatus::kOk) continue;
    out +=
        "- `" + cell.workload + "/" + cell.mode + "/" + cell.device + "`: " + detail::markdown_cell(cell.error) + "\n";
  }
  return out.empty() ? out : "\n**Failed cells**\n\n" + out;
}

std::string precision_table(const Report& report) {
  detail::MarkdownTable table({"workload", "mode", "device", "low-precision FLOP share", "tensor cores"});
  bool any = false;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || (!cell.precision && cell.tensor_cores.status != "measured")) continue;
    any = true;
    std::string tensor_cores = cell.tensor_cores.status;
    for (const auto& metric : cell.tensor_cores.metrics) {
      tensor_cores += "; " + metric.name + " " + detail::format_fixed(metric.value, 2) + " " + metric.unit + " (" +
                      metric.method + ")";
    }
    table.add_row({cell.workload, cell.mode, cell.device,
                   cell.precision ? detail::format_percent(cell.precision->low_precision_flop_share, false) : "-",
                   tensor_cores});
  }
  return any ? "\n**Precision audit**\n\n" + table.render() : "";
}

// GPU cells time steps on the device; the host's time per step beside it shows how much of the
// step the CPU spends launching work (when host >= device, the step is launch-bound).
std::string host_time_table(const Report& report) {
  detail::MarkdownTable table({"workload", "mode", "device", "device step (median)", "host step (median)"});
  bool any = false;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || cell.host_step_times_s.empty()) continue;
    any = true;
    table.add_row({cell.workload, cell.mode, cell.device, detail::format_duration(cell.throughput.step_time_s.median),
                   detail::format_duration(median(cell.host_step_times_s))});
  }
  return any ? "\n**Device vs host time per step**\n\n" + table.render() : "";
}

constexpr const char* kHowToRead =
    "\n<details><summary>How to read this</summary>\n\n"
    "- Step time: the modes of a workload take turns step by step, in rounds, in several worker processes per "
    "workload started at different times of the run. Each process's rounds give one value (their geometric mean), "
    "since a process's speed is partly its own; the figure is the geometric mean over the processes and the "
    "interval the 95% t interval over them: where a rerun of `ampbench run` on this machine is expected to land. "
    "(Runs with one worker per workload: over rounds, which misses the process's own speed; reports from before "
    "rounds: the median of the steps with an order-statistic interval, which says nothing about a rerun.)\n"
    "- Speedup: FP32 / this mode, paired round by round (both timed in the same rounds, so drift cancels in each "
    "pair), per process, then over processes as above. Memory: this mode's own peak tensor bytes / FP32's.\n"
    "- % of peak: achieved FLOP/s (the workload's FLOPs per step / the median step time) over the GEMM peak above "
    "for the cell's compute dtype (tfloat32 for TF32 matmuls): how close training comes to this machine's at::mm.\n"
    "- Loss divergence: \"diverged\" needs both a paired t-test over the final steps with p < 0.01 and a mean "
    "relative loss difference beyond the bound; \"final\" is the relative difference at the last step.\n"
    "- Skipped steps: steps the GradScaler skipped because a gradient was not finite.\n\n"
    "</details>\n";

}  // namespace

std::string render_markdown(const Report& report) {
  std::string out = "## ampbench report\n\n" + detail::markdown_cell(detail::machine_line(report)) + "\n\n" +
                    gemm_peaks(report.environment) + summary_table(report);
  if (const auto note = detail::failed_cells_note(report); !note.empty()) out += "\n" + note + "\n";
  if (const auto note = detail::gpu_verification_note(report); !note.empty()) out += "\n" + note + "\n";
  return out + failed_cells(report) + precision_table(report) + host_time_table(report) + kHowToRead;
}

}  // namespace ampbench::reports
