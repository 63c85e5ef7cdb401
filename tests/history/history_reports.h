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
// `machine` is the host's own speed: every probe time multiplied by it, every step time by
// machine^step_follows (a real cell's step moves part of the way with the probe: 0.5-1.0 on this
// project's host).
[[nodiscard]] reports::Report history_run(int run, double slowdown = 1.0, const std::string& slow_workload = "",
                                          double machine = 1.0, double step_follows = 1.0);

}  // namespace ampbench::testing
