#include "numerics_notes.h"

#include <algorithm>
#include <utility>

#include "format.h"
#include "summary_rows.h"

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

std::vector<std::string> numerics_failures(const Report& report) {
  std::vector<std::string> out;
  for (const auto& cell : report.cells) {
    if (cell.numerics && !cell.numerics->error.empty()) out.push_back(cell_name(cell) + ": " + cell.numerics->error);
  }
  return out;
}

}  // namespace ampbench::reports::detail
