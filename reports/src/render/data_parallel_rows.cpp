#include "render/data_parallel_rows.h"

#include "ampbench/reports/compare.h"
#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

// "12.6 MB", "0.042 MB": about three significant digits; a small model's gradients are kilobytes.
std::string megabytes(double bytes) {
  const double mb = bytes / 1e6;
  return format_fixed(mb, mb >= 100.0 ? 0 : mb >= 10.0 ? 1 : mb >= 1.0 ? 2 : 3) + " MB";
}

// Why a cell has no scaling efficiency: it needs this cell's steps and its one-rank twin's.
std::string missing_efficiency(const Report& report, const CellResult& cell) {
  if (cell.status != CellStatus::kOk) return "n/a: this cell failed";
  auto one_rank = key_of(cell);
  one_rank.ranks = 1;
  for (const auto& other : report.cells) {
    if (key_of(other) != one_rank) continue;
    return other.status == CellStatus::kOk ? "n/a: not recorded" : "n/a: the 1-rank cell failed";
  }
  return "n/a: no 1-rank cell in the report";
}

std::vector<std::string> row_of(const Report& report, const CellResult& cell) {
  const DataParallel& parallel = *cell.data_parallel;
  std::vector<std::string> rank_medians;
  for (const double median : parallel.rank_median_step_time_s) rank_medians.push_back(format_duration(median));
  return {
      key_of(cell).label(),
      parallel.backend,
      std::string(to_string(parallel.grad_compression)),
      std::to_string(parallel.buckets),
      format_duration_ci(parallel.allreduce_time_s),
      megabytes(parallel.allreduce_bytes_per_step),
      format_share(parallel.allreduce_time_s.median / cell.throughput.step_time_s.median),
      parallel.scaling_efficiency ? format_ratio_ci(*parallel.scaling_efficiency) : missing_efficiency(report, cell),
      parallel.inf_checks_agreed ? "yes" : "no",
      joined(rank_medians, ", ")};
}

}  // namespace

Table data_parallel_table(const Report& report) {
  Table table({"cell", "backend", "grad compression", "buckets", "all-reduce per step (95% CI)",
               "all-reduce data per step", "all-reduce share of step", "scaling efficiency (95% CI)",
               "inf checks agreed", "median step per rank"});
  for (const auto& cell : report.cells) {
    if (cell.data_parallel) table.add_row(row_of(report, cell));
  }
  return table;
}

std::string data_parallel_note() {
  return "All-reduce per step: in each timed step, the longest any rank had one of its gradient buckets' "
         "all-reduces in flight (they overlap the backward pass and include waiting for the other ranks); its share: "
         "the median all-reduce over the median step time. Data: "
         "what each rank hands to all-reduce per step, after compression. Scaling efficiency: the step time on 1 "
         "rank over the step time on these ranks, each rank with the same batch (1.00x is perfect). Inf checks "
         "agreed: every rank's GradScaler skipped the same steps.";
}

}  // namespace ampbench::reports::detail
