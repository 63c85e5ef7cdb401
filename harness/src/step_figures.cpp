#include "step_figures.h"

#include "ampbench/reports/stats.h"

namespace ampbench::harness::detail {

void derive_step_figures(reports::CellResult& cell) {
  auto& throughput = cell.throughput;
  throughput.step_time_s = reports::summarize(cell.step_times_s);
  const double median = throughput.step_time_s.median;
  throughput.samples_per_s = static_cast<double>(throughput.samples_per_step) / median;
  throughput.tokens_per_s = static_cast<double>(throughput.tokens_per_step) / median;
  throughput.achieved_flops_per_s = throughput.flops_per_step / median;
  if (cell.rounds) {
    cell.rounds->step_time = reports::summarize_rounds(cell.rounds->step_time_s, cell.rounds->round_replicate);
  }
  if (cell.data_parallel && !cell.data_parallel->allreduce_times_s.empty()) {
    cell.data_parallel->allreduce_time_s = reports::summarize(cell.data_parallel->allreduce_times_s);
  }
}

}  // namespace ampbench::harness::detail
