#include "breakdown_rows.h"

#include <algorithm>

#include "format.h"
#include "summary_rows.h"

namespace ampbench::reports::detail {
namespace {

// Where a category's column goes; categories not listed follow, by name.
int column_rank(const std::string& name) {
  static const std::vector<std::string> kOrder = {"matmul/conv float32",
                                                  "matmul/conv bfloat16",
                                                  "matmul/conv float16",
                                                  "casts",
                                                  "kept in float32",
                                                  "elementwise",
                                                  "optimizer",
                                                  "GradScaler",
                                                  "rest (autograd, views, host)"};
  const auto found = std::find(kOrder.begin(), kOrder.end(), name);
  return found == kOrder.end() ? static_cast<int>(kOrder.size()) : static_cast<int>(found - kOrder.begin());
}

std::string share_text(double seconds, double step) {
  return format_duration(seconds) + " (" + format_share(seconds / step) + ")";
}

}  // namespace

BreakdownTable breakdown_table(const Report& report) {
  std::vector<std::string> categories;
  for (const auto& cell : report.cells) {
    if (!cell.breakdown) continue;
    for (const auto& category : cell.breakdown->categories) {
      if (std::find(categories.begin(), categories.end(), category.name) == categories.end())
        categories.push_back(category.name);
    }
  }
  std::stable_sort(categories.begin(), categories.end(), [](const std::string& a, const std::string& b) {
    return column_rank(a) != column_rank(b) ? column_rank(a) < column_rank(b) : a < b;
  });
  BreakdownTable table;
  // A "ranks" column only when cells of several ranks could share a workload and mode.
  const bool with_ranks = with_ranks_column(report);
  table.header = {"workload", "mode"};
  if (with_ranks) table.header.emplace_back("ranks");
  table.header.emplace_back("profiled step");
  table.header.insert(table.header.end(), categories.begin(), categories.end());
  table.header.push_back("unattributed");
  for (const auto& cell : report.cells) {
    if (!cell.breakdown) continue;
    const auto& breakdown = *cell.breakdown;
    std::vector<std::string> row = {cell.workload, cell.mode};
    if (with_ranks) row.push_back(std::to_string(cell.ranks));
    row.push_back(format_duration(breakdown.step_time_s));
    for (const auto& name : categories) {
      const auto found = std::find_if(breakdown.categories.begin(), breakdown.categories.end(),
                                      [&](const TimeCategory& category) { return category.name == name; });
      row.push_back(found == breakdown.categories.end() ? "-"
                                                        : share_text(found->seconds_per_step, breakdown.step_time_s));
    }
    row.push_back(share_text(breakdown.unattributed_s, breakdown.step_time_s));
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace ampbench::reports::detail
