#include "render/numerics_notes.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ampbench/reports/counted.h"
#include "render/format.h"
#include "render/summary_rows.h"

namespace ampbench::reports::detail {

std::string numerics_cost_note(const Report& report) {
  std::vector<std::pair<std::string, double>> workloads;  // in the report's order
  std::vector<std::int64_t> steps;
  for (const auto& cell : report.cells) {
    if (!cell.numerics) continue;
    const auto& numerics = *cell.numerics;
    if (std::find(steps.begin(), steps.end(), numerics.steps) == steps.end()) steps.push_back(numerics.steps);
    auto workload = std::find_if(workloads.begin(), workloads.end(),
                                 [&cell](const auto& entry) { return entry.first == cell.workload; });
    if (workload == workloads.end()) workload = workloads.insert(workloads.end(), {cell.workload, 0.0});
    workload->second += numerics.run.wall_s + (numerics.floor ? numerics.floor->wall_s : 0.0);
  }
  if (workloads.empty()) return "";
  std::string step_counts;
  for (const auto count : steps) step_counts += (step_counts.empty() ? "" : "/") + std::to_string(count);
  std::string out = "Numerics pass (divergence): " + step_counts + " steps per mode";
  for (const auto& [workload, wall_s] : workloads) out += ", " + workload + " " + format_duration(wall_s);
  return out + ".";
}

std::string scale_calibration_note(const Report& report) {
  const auto whole = [](double scale) { return std::to_string(std::llround(scale)); };
  std::string cells;
  for (const auto& cell : report.cells) {
    if (!cell.numerics || !cell.numerics->run.scale_calibration) continue;
    const auto& calibration = *cell.numerics->run.scale_calibration;
    if (calibration.skipped_tries == 0) continue;
    const auto tries =
        counted(static_cast<std::size_t>(calibration.skipped_tries), "overflowing try", "overflowing tries");
    cells += (cells.empty() ? " " : "; ") + cell_name(cell) +
             (calibration.settled ? " started at " + whole(calibration.start_scale()) + " after " + tries
                                  : ": no scale down to 1 fitted in " + tries + ", so its pass started at " +
                                        whole(calibration.initial_scale) + " and skipped steps as PyTorch's would");
  }
  if (cells.empty()) return "";
  return "GradScaler start-up, before the numerics pass: each scaler's scale was tried on the pass's first batch "
         "from the initial weights, halving from 2^16 after each overflow, with no update kept, so that the "
         "pass's curve is not a step behind FP32's for it;" +
         cells + ".";
}

std::vector<std::string> numerics_failures(const Report& report) {
  std::vector<std::string> out;
  for (const auto& cell : report.cells) {
    if (cell.numerics && !cell.numerics->error.empty()) out.push_back(cell_name(cell) + ": " + cell.numerics->error);
  }
  return out;
}

}  // namespace ampbench::reports::detail
