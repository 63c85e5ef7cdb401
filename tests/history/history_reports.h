// Reports for the history's tests: the sample report (tests/reports/sample_report.h) with rounds,
// a machine probe and replicate workers in every cell that ran, as a run of `ampbench run` has.
#pragma once

#include <cstdint>
#include <string>

#include "ampbench/reports/report.h"

namespace ampbench::testing {

// Run `run` of a series: every cell's rounds scattered by +-1% around its sample step time (a
// pattern that depends on `run`, so that no two runs are the same report), times `slowdown` for
// the cells of `slow_workload` (all cells when empty). The probe is untouched by `slowdown`;
// `machine` is the host's own speed: every step time and every probe time multiplied by it.
[[nodiscard]] reports::Report history_run(int run, double slowdown = 1.0, const std::string& slow_workload = "",
                                          double machine = 1.0);

}  // namespace ampbench::testing
