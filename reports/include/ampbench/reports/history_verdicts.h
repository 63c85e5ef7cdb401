// The document `history check` returns: a run judged against its testbed's history, a verdict per
// cell with its reasons as typed values. The history decides (history/history_check.h); the
// renderers here choose the words, for the terminal, Markdown and JSON.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ampbench/reports/testbed.h"

namespace ampbench::reports {

// "unchanged", "improved", "inconclusive", "regressed", "needs confirmation", "not compared".
enum class HistoryVerdict { kUnchanged, kImproved, kInconclusive, kRegressed, kNeedsConfirmation, kNotCompared };
[[nodiscard]] const char* to_string(HistoryVerdict verdict);

// What a step-time change against the history came to.
enum class HistoryOutcome {
  kSignificant,   // beyond the threshold and the history's spread (regressed or improved)
  kWithinSpread,  // beyond the threshold, not beyond the history's spread
  kRawOtherWay,   // per probe beyond it, the raw step time moved the other way
  kRawWithin,     // per probe beyond it, the raw step time moved by less than the threshold
};

// The step time against the history's runs: `figure` ("step_time_per_probe" or "step_time_s") and
// its change, with the raw step time's where the figure is per probe.
struct HistoryStepTimeReason {
  std::string figure;
  double change = 0.0;  // relative: 0.093 is +9.3%
  std::size_t runs = 0;
  double p_value = 1.0;
  std::optional<double> raw_change;
  HistoryOutcome outcome = HistoryOutcome::kSignificant;
};

// The step time at the run's own probe, with the slope the cell's step follows the probe by over
// the history; the per-probe and raw changes beside it.
struct ProbeSlopeReason {
  double change = 0.0;
  std::size_t runs = 0;
  double slope = 0.0;
  double p_value = 1.0;
  double per_probe_change = 0.0;
  double raw_change = 0.0;
  bool significant = false;  // else not beyond the history's spread
};

// The run's probe moved beyond the host-state factor against the history's: not judged.
struct HostStateReason {
  std::string figure;
  double change = 0.0;
  double raw_change = 0.0;
  std::size_t runs = 0;
  double probe_ratio = 0.0;
};

// Runs of the history left out: the host was in its other state in them.
struct LeftOutRunsReason {
  std::size_t runs = 0;
};

// Too few runs since the series' last change point to judge by.
struct TooFewRunsReason {
  std::size_t runs = 0;
  std::size_t needed = 0;
};

// The cell failed in this run; `history_ran` says whether the history's runs ran it.
struct FailedCellReason {
  bool history_ran = false;
};

struct MemoryGrowthReason {
  double growth = 0.0;  // over the history's median
};

// Diverged (its ratio to the noise floor) where no run of the history did.
struct NewDivergenceReason {
  double ratio_to_floor = 0.0;
};

using HistoryReason = std::variant<HistoryStepTimeReason, ProbeSlopeReason, HostStateReason, LeftOutRunsReason,
                                   TooFewRunsReason, FailedCellReason, MemoryGrowthReason, NewDivergenceReason>;

// Whether the same code's second run (--rerun) regressed the cell too, where this one did.
enum class RerunOutcome { kNone, kConfirmed, kNotConfirmed };

// What one run can tell of a cell's step time against its history, from the spread of what the
// history predicts for the run (its t distribution): the change beyond which the run is flagged
// (p < alpha and beyond max_slowdown; in the per-probe test the raw time must also move beyond
// max_slowdown, which a change of the code with the probe unchanged does), and the change a run is
// flagged for 9 times in 10. A CI job reads in them what its runner can catch: on a shared
// 2-core CPU, +11% to +22% by cell against 20 runs.
struct StepTimeResolution {
  double flags_beyond = 0.0;  // relative: 0.093 is +9.3%
  double caught_from = 0.0;   // 9 runs in 10 are flagged from this change on
};

struct HistoryCellCheck {
  std::string cell;
  HistoryVerdict verdict = HistoryVerdict::kUnchanged;
  std::vector<HistoryReason> reasons;  // the figures behind the verdict
  RerunOutcome rerun = RerunOutcome::kNone;
  std::vector<HistoryReason> rerun_reasons;  // where the rerun confirmed it: the rerun's own
  std::size_t history_runs = 0;
  // Where the step time was judged: the change the test saw (per probe, or at the run's probe
  // with the cell's slope), against which the resolution is read.
  std::optional<double> step_time_change;
  std::optional<StepTimeResolution> resolution;
};

struct HistoryCheckResult {
  Testbed testbed;  // the run's own facts, under the name judged against
  // Judged by name (--testbed) against a testbed made from other facts: where they differ.
  std::vector<FactDifference> differing_facts;
  std::vector<HistoryCellCheck> cells;
  int regressed = 0;
  int needs_confirmation = 0;
  bool passed = true;  // no cell regressed or needs confirmation
};

// The cell's reasons in words, the rerun's last, joined by "; ".
[[nodiscard]] std::string describe_reasons(const HistoryCellCheck& cell);

// The verdicts for people: every cell that is not unchanged with its reason, then "PASS" or
// "FAIL" or "NEEDS CONFIRMATION" with the counts. Markdown for a job summary, and a self-contained
// HTML page (the same table, no script) for a reviewer.
[[nodiscard]] std::string render_history_check_text(const HistoryCheckResult& result);
[[nodiscard]] std::string render_history_check_markdown(const HistoryCheckResult& result);
[[nodiscard]] std::string render_history_check_html(const HistoryCheckResult& result);
// For programs: {"verdict": "pass" | "needs confirmation" | "fail" (exit 0, 4, 1), "regressed",
// "needs_confirmation", "testbed": {name, fingerprint, facts}, "differing_facts": [{fact, testbed,
// run}], "cells": [{cell, verdict, reason,
// history_runs, step_time_change, flags_beyond, caught_from}]}; the last three relative (0.093 is
// +9.3%) and null where the cell's step time was not judged.
[[nodiscard]] std::string render_history_check_json(const HistoryCheckResult& result);

}  // namespace ampbench::reports
