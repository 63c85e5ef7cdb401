#include "ampbench/history/history_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "ampbench/history/host_state.h"
#include "ampbench/history/probe_slope.h"
#include "ampbench/reports/check.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/stats.h"

namespace ampbench::history {
namespace {

using reports::FailedCellReason;
using reports::HistoryOutcome;
using reports::HistoryReason;
using reports::HistoryStepTimeReason;
using reports::HostStateReason;
using reports::LeftOutRunsReason;
using reports::MemoryGrowthReason;
using reports::NewDivergenceReason;
using reports::ProbeSlopeReason;
using reports::RerunOutcome;
using reports::TooFewRunsReason;

constexpr double kDivergedRatio = 3.0;  // reports' kFloorMultiple: "diverged" above it

double log_variance(const FigureValue& value) { return own_variance(value, ChangeScale::kRelative); }

// Where a check looks: the testbed's runs, less those being judged, under the check's options.
struct Scope {
  std::int64_t testbed = 0;
  std::set<std::int64_t> excluded;  // the runs being judged, when stored
  const HistoryCheckOptions* options = nullptr;
};

// The history a figure of a cell is judged against: the runs since its last change point (before
// options.before_run, when bisecting), at most options.window of them, without the runs judged.
std::vector<SeriesEntry> segment_entries(const HistoryStore& store, const Scope& scope, const std::string& cell,
                                         Figure figure) {
  const auto& options = *scope.options;
  const auto until = options.before_run.value_or(std::numeric_limits<std::int64_t>::max());
  std::int64_t from = 0;
  for (const auto& change : store.change_points(scope.testbed, cell, figure)) {
    if (change.run_id < until) from = change.run_id;
  }
  std::vector<SeriesEntry> entries;
  for (auto& entry : store.series(scope.testbed, cell, figure, from, until, options.window + scope.excluded.size())) {
    if (scope.excluded.count(entry.run_id) == 0) entries.push_back(std::move(entry));
  }
  if (entries.size() > options.window) {
    entries.erase(entries.begin(), entries.end() - static_cast<std::ptrdiff_t>(options.window));
  }
  return entries;
}

std::vector<FigureValue> values_of(const std::vector<SeriesEntry>& entries) {
  std::vector<FigureValue> values;
  for (const auto& entry : entries) values.push_back(entry.value);
  return values;
}

std::vector<FigureValue> segment(const HistoryStore& store, const Scope& scope, const std::string& cell,
                                 Figure figure) {
  return values_of(segment_entries(store, scope, cell, figure));
}

// The time series of a cell without the runs the host spent wholly in another state (host_state.h):
// on a shared 2-core CPU, 6 of 41 runs in one series did, widened the spread a run is judged
// against, and a +8% run then passed. Returns how many runs were left out.
std::size_t keep_usual_state(std::vector<SeriesEntry>& raw, std::vector<SeriesEntry>& per_probe) {
  const auto other_state = runs_in_other_host_state(raw, per_probe);
  const auto in_other_state = [&](const SeriesEntry& entry) { return other_state.count(entry.run_id) > 0; };
  raw.erase(std::remove_if(raw.begin(), raw.end(), in_other_state), raw.end());
  per_probe.erase(std::remove_if(per_probe.begin(), per_probe.end(), in_other_state), per_probe.end());
  return other_state.size();
}

struct Prediction {
  double ratio = 1.0;  // the run over the history's geometric mean
  double p_value = 1.0;
  double log_scale = 0.0;  // the prediction's standard deviation on logs
  double degrees = 0.0;
};

// What a figure's own variance on logs rests on: its draws less one (at least one).
double own_degrees(const FigureValue& value) { return std::max<double>(1.0, static_cast<double>(value.draws) - 1.0); }

// The history runs' mean own variance on logs, and the degrees of freedom it pools.
struct OwnVariance {
  double mean = 0.0;
  double degrees = 0.0;
};
OwnVariance own_variance_of(const std::vector<FigureValue>& history) {
  OwnVariance own;
  for (const auto& value : history) {
    own.mean += log_variance(value);
    own.degrees += own_degrees(value);
  }
  own.mean /= static_cast<double>(history.size());
  return own;
}

// A run's own variance beyond the history runs' mean own variance, where an F test at
// kNoisierRunAlpha says it is beyond; else 0. The history's spread already holds each run's own
// sampling error, so only a run measurably noisier than its runs widens what it is judged against.
// Taken as max(0, difference), the own variance of a run over 4-5 worker processes exceeded its
// runs' mean in 20-36% of the checks of three stored series, mostly by chance (the test calls 10-13
// of 126-180 beyond), and widened every such check (docs/performance.md, "The gate's spread,
// calibrated").
constexpr double kNoisierRunAlpha = 0.05;
double excess_own_variance(const FigureValue& run, const OwnVariance& history) {
  const double run_own = log_variance(run);
  if (!(run_own > history.mean)) return 0.0;
  if (history.mean > 0.0 &&
      reports::variance_ratio_p_value(run_own / history.mean, own_degrees(run), history.degrees) >= kNoisierRunAlpha) {
    return 0.0;
  }
  return run_own - history.mean;
}

// Whether `value` lies outside what `history` predicts for one more run (see history_check.h): the
// history's spread, not below its runs' mean own variance (runs that are each uncertain cannot make
// a change certain by agreeing), and what the run's own variance has beyond theirs.
Prediction predict(const std::vector<FigureValue>& history, const FigureValue& value) {
  const double n = static_cast<double>(history.size());
  double mean = 0.0;
  for (const auto& run : history) mean += std::log(run.value);
  mean /= n;
  double squares = 0.0;
  for (const auto& run : history) squares += std::pow(std::log(run.value) - mean, 2);
  const auto own = own_variance_of(history);
  const double variance = std::max(squares / (n - 1.0), own.mean);
  Prediction out;
  out.ratio = std::exp(std::log(value.value) - mean);
  out.log_scale = std::sqrt(variance * (1.0 + 1.0 / n) + excess_own_variance(value, own));
  out.degrees = n - 1.0;
  if (out.log_scale == 0.0) {
    out.p_value = out.ratio == 1.0 ? 1.0 : 0.0;
  } else {
    out.p_value = reports::student_t_p_value((std::log(value.value) - mean) / out.log_scale, out.degrees);
  }
  return out;
}

// The smallest slowdowns a run is flagged for, and flagged 9 times in 10, under a prediction of
// this spread (history_check.h): a change beyond both max_slowdown and t(alpha) spreads is
// flagged; a true change t(0.9) spreads beyond that is observed beyond it 9 times in 10.
StepTimeResolution resolution_of(double log_scale, double degrees, const HistoryCheckOptions& options) {
  const double flagged =
      std::max(std::log1p(options.max_slowdown), reports::student_t_critical(options.alpha, degrees) * log_scale);
  const double nine_in_ten = flagged + reports::student_t_critical(0.2, degrees) * log_scale;
  return {std::expm1(flagged), std::expm1(nine_in_ten)};
}

std::optional<FigureValue> figure_of(const CellFigures& cell, Figure figure) {
  for (const auto& [which, value] : cell.figures) {
    if (which == figure) return value;
  }
  return std::nullopt;
}

struct Judged {
  HistoryVerdict verdict = HistoryVerdict::kUnchanged;
  std::vector<HistoryReason> reasons;
  std::size_t history_runs = 0;
  std::optional<double> step_time_change;
  std::optional<StepTimeResolution> resolution;
};

void worsen(Judged& judged, HistoryVerdict verdict) {
  // Regressed outranks improved, which outranks inconclusive, which outranks unchanged.
  const auto rank = [](HistoryVerdict v) {
    switch (v) {
      case HistoryVerdict::kRegressed:
        return 4;
      case HistoryVerdict::kImproved:
        return 3;
      case HistoryVerdict::kInconclusive:
        return 2;
      case HistoryVerdict::kNotCompared:
        return 1;
      default:
        return 0;
    }
  };
  if (rank(verdict) > rank(judged.verdict)) judged.verdict = verdict;
}

// The step time judged at the run's own probe, with the cell's slope on the probe fitted over the
// history (probe_slope.h), where the history's probe moved enough to measure it and the run's probe
// lies within what the history saw. Returns false where it cannot judge, for the per-probe figure
// confirmed by the raw one to judge instead. Needs no confirmation by the raw time: the slope is
// what the raw time's disagreement with the per-probe figure measured. `per_probe_change` and
// `raw_change` (against each series' history) are only reported beside it.
bool judge_with_probe_slope(const std::vector<SeriesEntry>& raw_entries, const std::vector<SeriesEntry>& probe_entries,
                            const FigureValue& raw, const FigureValue& per_probe, double per_probe_change,
                            double raw_change, const HistoryCheckOptions& options, Judged& judged) {
  std::map<std::int64_t, const FigureValue*> raw_by_run;
  for (const auto& entry : raw_entries) raw_by_run[entry.run_id] = &entry.value;
  std::vector<ProbeAndStep> history;
  std::vector<FigureValue> per_probe_history;
  for (const auto& entry : probe_entries) {
    const auto it = raw_by_run.find(entry.run_id);
    if (it == raw_by_run.end()) continue;
    history.push_back({std::log(it->second->value / entry.value.value), std::log(it->second->value)});
    per_probe_history.push_back(entry.value);
  }
  const ProbeAndStep run{std::log(raw.value / per_probe.value), std::log(raw.value)};
  const auto fit = fit_probe_slope(history);
  if (history.size() < options.min_runs || !fit || !slope_applies(*fit, run.log_probe)) return false;
  judged.history_runs = history.size();
  // A run's own uncertainty is its per-probe figure's: its raw interval also holds how the host
  // moved between its worker processes, which the probe (timed in every round) follows.
  const auto prediction =
      predict_at_probe(*fit, run, excess_own_variance(per_probe, own_variance_of(per_probe_history)));
  const double change = prediction.ratio - 1.0;
  judged.step_time_change = change;
  judged.resolution = resolution_of(prediction.log_scale, prediction.degrees, options);
  if (std::abs(change) <= options.max_slowdown) return true;
  const bool significant = prediction.p_value < options.alpha;
  if (significant) {
    worsen(judged, change > 0 ? HistoryVerdict::kRegressed : HistoryVerdict::kImproved);
  } else {
    worsen(judged, HistoryVerdict::kInconclusive);
  }
  judged.reasons.push_back(ProbeSlopeReason{change, history.size(), fit->slope, prediction.p_value, per_probe_change,
                                            raw_change, significant});
  return true;
}

// A cell's step time and its history: the per-probe figure where the cell has one and its series
// enough runs of the host's usual state, else the raw one; the raw series beside it either way.
struct TimeHistory {
  Figure primary_figure = Figure::kStepTime;
  FigureValue primary;
  std::vector<FigureValue> history;
  std::vector<FigureValue> raw_history;
  std::vector<SeriesEntry> raw_entries;
  std::vector<SeriesEntry> probe_entries;
  std::size_t other_state = 0;  // runs of the history left out: the host was in its other state
};

TimeHistory time_history(const HistoryStore& store, const Scope& scope, const CellFigures& cell,
                         const FigureValue& raw) {
  TimeHistory out;
  out.primary = raw;
  out.raw_entries = segment_entries(store, scope, cell.cell, Figure::kStepTime);
  if (const auto per_probe = figure_of(cell, Figure::kStepTimePerProbe)) {
    out.probe_entries = segment_entries(store, scope, cell.cell, Figure::kStepTimePerProbe);
    out.other_state = keep_usual_state(out.raw_entries, out.probe_entries);
    if (out.probe_entries.size() >= scope.options->min_runs) {
      out.primary_figure = Figure::kStepTimePerProbe;
      out.primary = *per_probe;
      out.history = values_of(out.probe_entries);
    }
  }
  out.raw_history = values_of(out.raw_entries);
  if (out.primary_figure == Figure::kStepTime) out.history = out.raw_history;
  return out;
}

// Beyond the threshold: regressed (or improved) where significant and the raw time agrees, else
// inconclusive with what kept it from a verdict.
void judge_change(const TimeHistory& series, double change, double raw_change, double p_value,
                  const HistoryCheckOptions& options, Judged& judged) {
  const bool raw_confirms = change > 0 ? raw_change > options.max_slowdown : raw_change < -options.max_slowdown;
  const auto outcome = p_value < options.alpha && raw_confirms ? HistoryOutcome::kSignificant
                       : raw_confirms                          ? HistoryOutcome::kWithinSpread
                       : raw_change * change < 0               ? HistoryOutcome::kRawOtherWay
                                                               : HistoryOutcome::kRawWithin;
  worsen(judged, outcome != HistoryOutcome::kSignificant ? HistoryVerdict::kInconclusive
                 : change > 0                            ? HistoryVerdict::kRegressed
                                                         : HistoryVerdict::kImproved);
  const auto raw = series.primary_figure != Figure::kStepTime ? std::optional(raw_change) : std::nullopt;
  judged.reasons.push_back(HistoryStepTimeReason{std::string(to_string(series.primary_figure)), change,
                                                 series.history.size(), p_value, raw, outcome});
}

void judge_time(const HistoryStore& store, const Scope& scope, const CellFigures& cell, Judged& judged) {
  const auto& options = *scope.options;
  const auto raw = figure_of(cell, Figure::kStepTime);
  if (!raw) return;
  const auto series = time_history(store, scope, cell, *raw);
  judged.history_runs = series.history.size();
  if (series.other_state > 0) judged.reasons.push_back(LeftOutRunsReason{series.other_state});
  // The per-probe series stands in only with enough runs, so the short one is always the raw one
  // (its last change point may be later than the per-probe series' one).
  if (series.raw_history.size() < options.min_runs) {
    worsen(judged, HistoryVerdict::kNotCompared);
    judged.reasons.push_back(TooFewRunsReason{series.raw_history.size(), options.min_runs});
    return;
  }
  const auto prediction = predict(series.history, series.primary);
  const auto raw_prediction = predict(series.raw_history, *raw);
  const double change = prediction.ratio - 1.0;
  const double raw_change = raw_prediction.ratio - 1.0;
  // The probe's level against the history's: what divides the raw time into the per-probe one.
  const double probe = raw_prediction.ratio / prediction.ratio;
  const bool per_probe = series.primary_figure == Figure::kStepTimePerProbe;
  if (per_probe && reports::probe_moved_between_host_states(probe)) {
    if (std::abs(change) <= options.max_slowdown && std::abs(raw_change) <= options.max_slowdown) return;
    worsen(judged, HistoryVerdict::kInconclusive);
    judged.reasons.push_back(HostStateReason{std::string(to_string(series.primary_figure)), change, raw_change,
                                             series.history.size(), probe});
    return;
  }
  if (per_probe && judge_with_probe_slope(series.raw_entries, series.probe_entries, *raw, series.primary, change,
                                          raw_change, options, judged)) {
    return;
  }
  judged.step_time_change = change;
  judged.resolution = resolution_of(prediction.log_scale, prediction.degrees, options);
  if (std::abs(change) <= options.max_slowdown) return;
  judge_change(series, change, raw_change, prediction.p_value, options, judged);
}

Judged judge_cell(const HistoryStore& store, const Scope& scope, const CellFigures& cell) {
  const auto& options = *scope.options;
  Judged judged;
  if (cell.status != reports::CellStatus::kOk) {
    const auto ran = segment(store, scope, cell.cell, Figure::kStepTime);
    judged.history_runs = ran.size();
    if (ran.empty()) {
      judged.verdict = HistoryVerdict::kNotCompared;
      judged.reasons.push_back(FailedCellReason{false});
    } else {
      judged.verdict = HistoryVerdict::kRegressed;
      judged.reasons.push_back(FailedCellReason{true});
    }
    return judged;
  }
  judge_time(store, scope, cell, judged);
  if (const auto memory = figure_of(cell, Figure::kPeakTensorBytes)) {
    const auto history = segment(store, scope, cell.cell, Figure::kPeakTensorBytes);
    if (!history.empty()) {
      std::vector<double> values;
      for (const auto& run : history) values.push_back(run.value);
      const double growth = memory->value / reports::median(values) - 1.0;
      if (growth > options.max_memory_growth) {
        worsen(judged, HistoryVerdict::kRegressed);
        judged.reasons.push_back(MemoryGrowthReason{growth});
      }
    }
  }
  if (const auto divergence = figure_of(cell, Figure::kDivergenceRatio);
      divergence && divergence->value > kDivergedRatio) {
    const auto history = segment(store, scope, cell.cell, Figure::kDivergenceRatio);
    const bool ever =
        std::any_of(history.begin(), history.end(), [](const FigureValue& run) { return run.value > kDivergedRatio; });
    if (!history.empty() && !ever) {
      worsen(judged, HistoryVerdict::kRegressed);
      judged.reasons.push_back(NewDivergenceReason{divergence->value});
    }
  }
  return judged;
}

// The two-run protocol's false-alarm rate is the square of one run's only for two independent runs
// of the same code on the same kind of machine.
void require_independent_rerun(const reports::Report& current, const Testbed& testbed, const reports::Report& rerun) {
  if (report_digest(rerun) == report_digest(current)) {
    throw HistoryError("--rerun: the same report as the run judged; a rerun is a second run of the suite");
  }
  if (const auto differences = differing_facts(testbed, testbed_of(rerun)); !differences.empty()) {
    throw HistoryError("--rerun: a run on another testbed than the run judged (" + describe_differences(differences) +
                       ")");
  }
}

}  // namespace

HistoryCheckResult check_against_history(const HistoryStore& store, const reports::Report& current,
                                         const reports::Report* rerun, const std::string& testbed_name,
                                         const HistoryCheckOptions& options) {
  HistoryCheckResult result;
  result.testbed = testbed_of(current, testbed_name);
  if (rerun != nullptr) require_independent_rerun(current, result.testbed, *rerun);
  const auto row = store.testbed_named(result.testbed.name);
  if (!row || row->runs == 0) {
    throw HistoryError("no runs of testbed " + result.testbed.name + " in the history (history add stores some)");
  }
  result.differing_facts = differing_facts(row->testbed, result.testbed);
  Scope scope{row->id, {}, &options};
  for (const auto* report : {&current, rerun}) {
    if (report == nullptr) continue;
    if (const auto stored = store.run_with_digest(report_digest(*report))) scope.excluded.insert(*stored);
  }
  const auto judged_here = [&options](const CellFigures& cell) {
    return options.cell.empty() || cell.cell == options.cell;
  };
  std::map<std::string, Judged> rerun_verdicts;
  if (rerun != nullptr) {
    for (const auto& cell : run_figures(*rerun)) {
      if (judged_here(cell)) rerun_verdicts[cell.cell] = judge_cell(store, scope, cell);
    }
  }
  for (const auto& cell : run_figures(current)) {
    if (!judged_here(cell)) continue;
    auto judged = judge_cell(store, scope, cell);
    auto rerun_outcome = RerunOutcome::kNone;
    std::vector<HistoryReason> rerun_reasons;
    if (judged.verdict == HistoryVerdict::kRegressed) {
      const auto again = rerun_verdicts.find(cell.cell);
      if (rerun == nullptr) {
        judged.verdict = HistoryVerdict::kNeedsConfirmation;
      } else if (again == rerun_verdicts.end() || again->second.verdict != HistoryVerdict::kRegressed) {
        judged.verdict = HistoryVerdict::kUnchanged;
        rerun_outcome = RerunOutcome::kNotConfirmed;
      } else {
        rerun_outcome = RerunOutcome::kConfirmed;
        rerun_reasons = again->second.reasons;
      }
    }
    result.regressed += judged.verdict == HistoryVerdict::kRegressed;
    result.needs_confirmation += judged.verdict == HistoryVerdict::kNeedsConfirmation;
    result.cells.push_back({cell.cell, judged.verdict, std::move(judged.reasons), rerun_outcome,
                            std::move(rerun_reasons), judged.history_runs, judged.step_time_change, judged.resolution});
  }
  if (!options.cell.empty() && result.cells.empty()) {
    throw HistoryError("the run has no cell " + options.cell);
  }
  result.passed = result.regressed == 0 && result.needs_confirmation == 0;
  return result;
}

}  // namespace ampbench::history
