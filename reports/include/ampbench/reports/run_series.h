// Two or more reports of the same suite read together, the first given the baseline: per cell,
// every run's figures (step time with its interval, speedup vs FP32, memory, divergence) and each
// later run's change against the baseline with the verdict `check`'s rules give it. What
// `compare` prints (text, Markdown, JSON) and what the comparison page (HTML) draws; `check
// --html` builds one of two runs with the gate's own thresholds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ampbench/reports/check.h"
#include "ampbench/reports/compare.h"
#include "ampbench/reports/report.h"
#include "ampbench/reports/stats.h"

namespace ampbench::reports {

inline constexpr const char* kComparisonSchema = "ampbench.comparison/1";

struct SeriesInput {
  std::string label;  // how the run is named on the page: its file name
  Report report;
};

// A value with its 95% interval and what the interval is over.
struct Estimate {
  double value = 0.0;
  double ci_low = 0.0;
  double ci_high = 0.0;
  // "worker processes", "rounds" (one worker) or "steps" (reports from before rounds, and Google
  // Benchmark JSON: the median and its order-statistic interval).
  std::string over;
};
// A cell's step time as the run report shows it, recomputed from the samples: over its rounds
// (per worker process when it had several) when it has them, else the median of its steps.
[[nodiscard]] Estimate step_time_estimate(const CellResult& cell);

// One run's figures for one cell, and for every run but the baseline its comparison with it.
struct SeriesPoint {
  std::optional<std::size_t> cell;  // index into the run's report.cells; absent: the run has no such cell
  // Against the baseline's cell (absent for the baseline itself and where either side lacks the
  // cell); `verdict` is check's judgement (missing where a side lacks the cell), absent for the
  // baseline itself.
  std::optional<CellComparison> against_baseline;
  std::optional<Verdict> verdict;
  std::vector<CheckReason> reasons;
};

struct CellSeries {
  CellKey key;
  std::vector<SeriesPoint> points;  // one per run, in RunSeries::runs order
};

// A setting or fact of the environment whose value is not the same in every run.
struct EnvironmentDifference {
  std::string field;                // "CPU", "torch", "threads", "cuda:0", "setting --steps", ...
  std::vector<std::string> values;  // one per run, in RunSeries::runs order
};

// How the runs of a series are ordered.
enum class SeriesOrder {
  kGiven,      // as given on the command line
  kStartTime,  // by each run's start time
};
// "given", "time": comparison.json's "order".
[[nodiscard]] std::string_view to_string(SeriesOrder order);
// "as given", "by start time": the pages' headings.
[[nodiscard]] std::string_view describe(SeriesOrder order);

struct RunSeries {
  std::vector<SeriesInput> runs;  // in display order: as given, or by each run's start time
  std::size_t baseline = 0;       // index into runs: the first report given
  SeriesOrder order = SeriesOrder::kGiven;
  CheckOptions options;  // the thresholds the verdicts use
  std::vector<EnvironmentDifference> environment_differences;
  std::vector<CellSeries> cells;    // the baseline's cells first, then cells new in later runs
  std::vector<CheckResult> checks;  // per run, against the baseline (the baseline's own is empty)

  // The run's cell at this point, or null.
  [[nodiscard]] const CellResult* cell_at(const CellSeries& series, std::size_t run) const;
};

// Throws ReportError when the runs cannot be read together (fewer than two; a Google Benchmark
// file among ampbench reports), and std::invalid_argument for options `check` would refuse. `by_time` orders the runs
// by their start time (the baseline stays the first given).
[[nodiscard]] RunSeries build_run_series(std::vector<SeriesInput> runs, const CheckOptions& options,
                                         bool by_time = false);

// "base.json 1 rank, cur.json 2 ranks": each run's world size (config.ranks) when they are not all
// the same, else empty. check and compare refuse such runs unless told otherwise: a run's cells of
// N ranks meet only cells of N ranks (CellKey), so most cells would go unmatched.
[[nodiscard]] std::string world_size_difference(const std::vector<SeriesInput>& runs);

// Every field (environment, the GPUs, each cell's precision settings, the run's settings) whose
// value differs between the reports.
[[nodiscard]] std::vector<EnvironmentDifference> environment_differences(const std::vector<const Report*>& reports);

// The verdict a reader sees: check's "pass" shows as "unchanged" (no change beyond the threshold),
// the baseline's point as "baseline".
[[nodiscard]] std::string shown_verdict(const std::optional<Verdict>& verdict);

// Renderings. Text and Markdown: the runs, what differs between their environments, the last run
// against the baseline cell by cell and, with more than two runs, the trend per cell. JSON: the
// same data (schema kComparisonSchema; strict: null for non-finite numbers). HTML: one
// self-contained page with the tables and charts; with `gate`, the check's PASS/FAIL heads it.
[[nodiscard]] std::string render_series_table(const RunSeries& series);
[[nodiscard]] std::string render_series_markdown(const RunSeries& series);
[[nodiscard]] nlohmann::json series_to_json(const RunSeries& series);
[[nodiscard]] std::string render_series_html(const RunSeries& series, bool gate = false);

}  // namespace ampbench::reports
