// The CI gate against history: a run judged against the last runs of its testbed since each
// series' last change point, instead of against one baseline report.
//
// Per cell, the time figure (the step time per machine probe; the raw step time where the run has
// no probe) is tested as a prediction: is the run's value outside what the history's runs predict
// for one more run? On logs, t = (log x - mean) / sqrt(s^2 (1 + 1/n) + own), with s^2 the history's
// variance (at least its runs' own mean variance, as in change_points.h), `own` what the run's own
// variance from its interval has beyond the history runs' mean own variance where an F test at 0.05
// says it is beyond (their spread already holds each run's sampling error; a run measurably noisier
// than they were widens it), and n - 1 degrees of freedom. Beyond max_slowdown with p < alpha,
// and the raw step time beyond it the same way, is a regression (the reverse an improvement);
// beyond it without both, inconclusive. Where the history's probe moved enough to measure how far
// the cell's step follows it (probe_slope.h: the slope known to +-0.5) and the run's probe lies
// within the range the history saw, the step time is judged at the run's own probe instead: the
// fit's prediction interval for one more run (its residual spread, no floor under it, and `own` as
// above), n - 2 degrees of freedom, with no confirmation by
// the raw time (the slope is what the two views' disagreement measured). A run whose machine probe took beyond 1.3x (or
// under 1/1.3) its time in the history's runs spent all its rounds in another state of the host, where steps follow the
// probe by cell in part or more than in full: a change either way is then inconclusive
// (reports::probe_moved_between_host_states, as `check`). Peak tensor memory (deterministic) regresses beyond
// max_memory_growth over the history's median; the divergence ratio regresses when the run diverged (ratio above 3
// noise floors) and no run of the history did; a cell that failed where the history's last run had it succeed
// regresses.
//
// One run alone is never enough to fail a build: a cell that would regress "needs confirmation",
// and a CI job answers by running again and passing both reports (`rerun`): a cell regresses when
// both runs regress it. If one run's false-alarm rate is a, two independent runs' is about a^2.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ampbench/history/history_store.h"
#include "ampbench/reports/history_verdicts.h"

namespace ampbench::history {

struct HistoryCheckOptions {
  std::size_t window = 20;     // at most this many runs since the last change point
  std::size_t min_runs = 5;    // fewer: the cell is not compared
  double max_slowdown = 0.05;  // of the time figure
  double max_memory_growth = 0.05;
  double alpha = 0.01;
  // Bisecting: judge against the runs before this one (and since the change point before it), so
  // that a commit is "regressed" when it measures like the runs after the change point.
  std::optional<std::int64_t> before_run;
  std::string cell;  // judge only this cell; empty: every cell
};

// The verdicts are the document's types (reports/history_verdicts.h): the history decides them,
// the renderers there print them.
using reports::HistoryCellCheck;
using reports::HistoryCheckResult;
using reports::HistoryVerdict;
using reports::StepTimeResolution;

// Judges `current` (and, when given, its rerun) against the store's history of the testbed named
// `testbed` (empty: the current run's own). Runs already stored with the same content as `current`
// or `rerun` are left out of the history. Throws HistoryError when the testbed has no runs, and for
// a rerun that is the same report as `current` or ran on other facts (another testbed).
[[nodiscard]] HistoryCheckResult check_against_history(const HistoryStore& store, const reports::Report& current,
                                                       const reports::Report* rerun, const std::string& testbed,
                                                       const HistoryCheckOptions& options);

}  // namespace ampbench::history
