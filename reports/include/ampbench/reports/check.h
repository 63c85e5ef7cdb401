// The CI gate: baseline vs current, a verdict per cell and one for the run. A cell regresses only
// when a change is both statistically real and larger than its threshold, so noise never fails a
// build and a tiny but real change does not either. Improvements never fail.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ampbench/reports/check_reason.h"
#include "ampbench/reports/compare.h"
#include "ampbench/reports/report.h"

namespace ampbench::reports {

struct CheckOptions {
  double max_slowdown = 0.05;       // relative change of the median step time
  double max_memory_growth = 0.05;  // relative change of peak tensor bytes
  double max_energy_growth = 0.05;  // relative change of joules per timed step, where both measured it
  // Largest acceptable |window mean relative loss difference| from FP32 in the current report;
  // unset: a cell regresses when its divergence verdict got worse than the baseline's.
  std::optional<double> max_divergence;
  double alpha = 0.01;  // significance level of the step-time U test and the divergence t-test
  bool strict = false;  // cells missing from either report (or failed in both) fail the check
};

// The rules, per matched cell (each reason a CheckReason, check_reason.h):
// - step time, when both cells have interleaved rounds: each round's median divided by the same
//   round's machine probe, reduced to one value per worker process (replicate) when a run had
//   several, compared by Welch's t test on logs, and the same for the raw round medians. It
//   regresses when per probe p < alpha and the ratio of geometric means - 1 > max_slowdown, and
//   the raw ratio - 1 > max_slowdown too: the change is beyond what the machine's drift explains
//   (per probe) and a user would see it (raw). The same with the sign reversed is an
//   improvement. Per probe within the threshold: a pass (a raw change is then the machine's,
//   noted). Per probe beyond it but not significant, or a raw change within the threshold:
//   "inconclusive" (passes, listed). When the machine probe itself moved beyond
//   kSlowMachineFactor (1.3x, either way), one run spent all its rounds in another state of the
//   host and steps follow the probe by cell, in part or more than in full: any change is then
//   "inconclusive", with that reason. Replicates
//   make the test's noise that of a rerun (a process's own speed included), not of one process;
// - step time, for older reports without rounds: the U test on the steps, as above (it cannot tell
//   machine drift from a code change, and says so);
// - step time is not judged when either run's rounds of the cell ran mostly throttled (more than
//   half, DeviceRounds): "inconclusive", naming what throttled them;
// - memory regresses when peak tensor bytes grew by more than max_memory_growth (one value per
//   cell, deterministic for a given workload and mode, so no test);
// - energy, where both cells measured it: joules per step by rounds (Welch's t on logs) regresses
//   when p < alpha and it grew by more than max_energy_growth; grown beyond it without
//   significance, "inconclusive";
// - divergence regresses when an AMP loss became non-finite, or, with max_divergence, when the
//   current cell's divergence test has p < alpha and |window mean rel. diff| > max_divergence,
//   or, without it, when the verdict became "diverged" (or the loss non-finite) where the baseline's
//   was not;
// - a cell regresses when its gradient norm was not finite at a step the GradScaler did not skip
//   (the optimizer stepped on inf/NaN gradients);
// - a cell that failed in the current report but not in the baseline regresses.
// A cell's judgement. Its names ("pass", "improved", "inconclusive", "regressed", "missing", "not
// compared") appear only where people or other programs read it: text, Markdown, JSON, HTML.
enum class Verdict { kPass, kImproved, kInconclusive, kRegressed, kMissing, kNotCompared };
[[nodiscard]] const char* to_string(Verdict verdict);

struct CellCheck {
  CellKey key;
  Verdict verdict = Verdict::kPass;
  std::vector<CheckReason> reasons;  // the figures behind a regression or improvement, or notes
};

struct CheckResult {
  std::vector<CellCheck> cells;
  int regressed = 0;
  int inconclusive = 0;       // changes beyond the threshold that the runs' noise cannot resolve
  int compared_by_steps = 0;  // cells without rounds on both sides (older reports): the U test fallback
  int missing = 0;            // missing from one side, or failed in both
  bool passed = true;
};

// Throws std::invalid_argument for options a gate cannot judge with: alpha not in (0, 0.5], or a
// threshold that is negative or not finite (a NaN would make every comparison false: a pass).
[[nodiscard]] CheckResult check_reports(const ReportComparison& comparison, const CheckOptions& options);

// Whether a machine probe's change between two runs (later over earlier) says that one of them
// spent all its rounds in another state of the host: beyond kSlowMachineFactor (1.3x) either way.
// Steps then follow the probe by cell, in part or more than in full, so neither the raw nor the
// per-probe step time is judged (check here; `history check` against its history).
[[nodiscard]] bool probe_moved_between_host_states(double probe_ratio);

// Differences that make two reports incomparable: the hardware (CPU model, the models of the GPUs
// the cells ran on, threads) and each matched cell's precision settings. Empty when they match.
[[nodiscard]] std::vector<std::string> environment_mismatches(const Report& base, const Report& current);

// "max slowdown 5%, max memory growth 5%, alpha 0.01": the thresholds verdicts were judged by.
[[nodiscard]] std::string describe_check_options(const CheckOptions& options);
// "PASS: 0 of 6 cells regressed (<thresholds>)", with the inconclusive and missing counts and, when
// some cells had no rounds, a second line saying the U test judged them.
[[nodiscard]] std::string check_summary_line(const CheckResult& result, const CheckOptions& options);

// The verdict for people: each regressed cell with its figures, then the other notes; the last
// line says PASS or FAIL with the counts.
[[nodiscard]] std::string render_check_text(const CheckResult& result, const CheckOptions& options);
[[nodiscard]] std::string render_check_markdown(const CheckResult& result, const CheckOptions& options);
// For programs (schema "ampbench.check/1"): {"schema", "verdict": "pass" | "fail" (exit 0, 1),
// "regressed", "inconclusive", "missing", "compared_by_steps", "thresholds": {max_slowdown,
// max_memory_growth, max_divergence (null: the verdict rule), alpha, strict}, "cells": [{cell,
// verdict, reasons: [{id, text}]}]}, the cells in the order the text lists them; a reason's id
// (reason_id in check_reason.h) is for a program, its text for a person.
[[nodiscard]] std::string render_check_json(const CheckResult& result, const CheckOptions& options);

}  // namespace ampbench::reports
