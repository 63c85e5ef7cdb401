// Internal: the figures a cell derives from its timed steps and rounds. Recomputed whenever those
// change: after a worker's rounds, and again once a workload's replicates are joined.
#pragma once

#include "ampbench/reports/report.h"

namespace ampbench::harness::detail {

// From cell.step_times_s and cell.rounds: the step-time summary, the rates per second (from the
// per-step counts already in cell.throughput) and the estimate over rounds, or over replicates
// when the rounds came from several worker processes.
void derive_step_figures(reports::CellResult& cell);

}  // namespace ampbench::harness::detail
