#include "render/breakdown_rows.h"

#include <algorithm>
#include <utility>

#include "render/format.h"
#include "render/summary_rows.h"

namespace ampbench::reports::detail {
namespace {

// The columns' order: by family (kOpFamilies), matrix products float32 first, then the AMP
// dtypes, then any other by name.
std::pair<int, std::string> column_rank(const OpCategory& category) {
  static const std::vector<std::string> kDtypes = {"float32", "bfloat16", "float16"};
  const auto dtype = std::find(kDtypes.begin(), kDtypes.end(), category.dtype);
  return {static_cast<int>(dtype - kDtypes.begin()), dtype == kDtypes.end() ? category.dtype : ""};
}

bool column_before(const OpCategory& a, const OpCategory& b) {
  if (a.family != b.family) return a.family < b.family;
  return column_rank(a) < column_rank(b);
}

std::string share_text(double seconds, double step) {
  return format_duration(seconds) + " (" + format_share(seconds / step) + ")";
}

// The op with the most time of its own, which a category's sum hides: "aten::max_pool2d_with_indices
// float32 6.359 ms (30.7%)"; "-" in a report from before top_ops.
std::string largest_op_text(const TimeBreakdown& breakdown) {
  if (breakdown.top_ops.empty()) return "-";
  const auto& op = breakdown.top_ops.front();
  return op.op + (op.dtype.empty() ? "" : " " + op.dtype) + " " +
         share_text(op.seconds_per_step, breakdown.step_time_s);
}

// LibTorch's profiler costs host time per op. Where the host issues the step (a GPU waiting on it,
// a CPU step of many small ops) the profiled step grows: on an H200 SimpleNet's FP16 profiled step
// took 3.33 ms against 1.63 ms timed. Beyond this ratio the shares are of a different step.
constexpr double kProfilingCostNoted = 1.25;

std::string profiling_cost_note(const Report& report) {
  std::string cells;
  for (const auto& cell : report.cells) {
    if (!cell.breakdown || cell.status != CellStatus::kOk) continue;
    const double timed = timed_step_seconds(cell);
    if (!(timed > 0.0) || cell.breakdown->step_time_s <= kProfilingCostNoted * timed) continue;
    cells += (cells.empty() ? " " : ", ") + cell_name(cell) + " " + format_ratio(cell.breakdown->step_time_s / timed);
  }
  if (cells.empty()) return "";
  return "Profiled steps longer than the timed ones (the profiler's own cost per op, which lengthens a step "
         "the host issues):" +
         cells +
         ". Their shares are of the longer step: on a GPU the categories are kernel times as the device ran "
         "them and \"unattributed\" is mostly the device waiting for the slowed host; on a CPU the profiler's "
         "cost lands in \"unattributed\" and in the ops it times. Compare those cells' category times, not "
         "their shares, with the timed step.";
}

}  // namespace

BreakdownTable breakdown_table(const Report& report) {
  std::vector<OpCategory> categories;
  for (const auto& cell : report.cells) {
    if (!cell.breakdown) continue;
    for (const auto& time : cell.breakdown->categories) {
      if (std::find(categories.begin(), categories.end(), time.category) == categories.end())
        categories.push_back(time.category);
    }
  }
  std::sort(categories.begin(), categories.end(), column_before);
  BreakdownTable table;
  // A "ranks" column only when cells of several ranks could share a workload and mode.
  const bool with_ranks = with_ranks_column(report);
  table.table.header = {"workload", "mode"};
  if (with_ranks) table.table.header.emplace_back("ranks");
  table.table.header.emplace_back("profiled step");
  for (const auto& category : categories) table.table.header.push_back(to_string(category));
  table.table.header.push_back("unattributed");
  table.table.header.push_back("largest op (own time)");
  for (const auto& cell : report.cells) {
    if (!cell.breakdown) continue;
    const auto& breakdown = *cell.breakdown;
    std::vector<std::string> row = {cell.workload, cell.mode};
    if (with_ranks) row.push_back(std::to_string(cell.ranks));
    row.push_back(format_duration(breakdown.step_time_s));
    for (const auto& category : categories) {
      const auto found = std::find_if(breakdown.categories.begin(), breakdown.categories.end(),
                                      [&](const TimeCategory& time) { return time.category == category; });
      row.push_back(found == breakdown.categories.end() ? "-"
                                                        : share_text(found->seconds_per_step, breakdown.step_time_s));
    }
    row.push_back(share_text(breakdown.unattributed_s, breakdown.step_time_s));
    row.push_back(largest_op_text(breakdown));
    table.table.add_row(std::move(row));
  }
  table.profiling_cost_note = profiling_cost_note(report);
  return table;
}

}  // namespace ampbench::reports::detail
