// Reading several reports together: each later run compared with the baseline and judged by
// check's rules, so compare's verdicts and the gate's never disagree for the same thresholds.
#include "ampbench/reports/run_series.h"

#include <algorithm>
#include <map>

#include "ampbench/reports/counted.h"
#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/report_json.h"
#include "render/format.h"

namespace ampbench::reports {
namespace {

void require_readable_together(const std::vector<SeriesInput>& runs) {
  if (runs.size() < 2) {
    throw ReportError("needs at least two reports (a baseline and one to compare with it), got " +
                      std::to_string(runs.size()));
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto kind = [](const Report& report) {
      return report.schema == kGoogleBenchmarkSchema ? "Google Benchmark JSON" : "an ampbench report";
    };
    if (runs[i].report.schema != runs.front().report.schema) {
      throw ReportError(runs[i].label + ": is " + kind(runs[i].report) + " but " + runs.front().label + " is " +
                        kind(runs.front().report) + "; compare files of one kind");
    }
  }
}

// Cells keyed across runs: the baseline's in its order, then those only later runs have.
std::vector<CellSeries> cell_rows(const RunSeries& series) {
  std::vector<CellSeries> rows;
  std::map<CellKey, std::size_t> row_of;
  const auto add_cells_of = [&](std::size_t run) {
    const auto& cells = series.runs[run].report.cells;
    for (std::size_t index = 0; index < cells.size(); ++index) {
      const auto key = key_of(cells[index]);
      auto [found, added] = row_of.emplace(key, rows.size());
      if (added) rows.push_back({key, std::vector<SeriesPoint>(series.runs.size())});
      rows[found->second].points[run].cell = index;
    }
  };
  add_cells_of(series.baseline);
  for (std::size_t run = 0; run < series.runs.size(); ++run) {
    if (run != series.baseline) add_cells_of(run);
  }
  return rows;
}

// Fills every non-baseline point with its comparison and check's verdict against the baseline.
void judge_against_baseline(RunSeries& series) {
  const Report& base = series.runs[series.baseline].report;
  series.checks.resize(series.runs.size());
  std::map<CellKey, CellSeries*> row_of;
  for (auto& row : series.cells) row_of[row.key] = &row;
  for (std::size_t run = 0; run < series.runs.size(); ++run) {
    if (run == series.baseline) continue;
    const auto comparison = compare_reports(base, series.runs[run].report);
    series.checks[run] = check_reports(comparison, series.options);
    for (const auto& cell : comparison.cells) row_of.at(cell.key)->points[run].against_baseline = cell;
    for (const auto& check : series.checks[run].cells) {
      auto& point = row_of.at(check.key)->points[run];
      point.verdict = check.verdict;
      point.reasons = check.reasons;
    }
  }
}

}  // namespace

// Recomputed from the samples like every figure compare shows, never copied from the file.
Estimate step_time_estimate(const CellResult& cell) {
  if (cell.rounds && !cell.rounds->step_time_s.empty()) {
    const auto& replicate = cell.rounds->round_replicate;
    const auto estimate = summarize_rounds(cell.rounds->step_time_s, replicate);
    const bool over_workers = !replicate.empty() && replicate.back() > replicate.front();
    return {estimate.value, estimate.ci_low, estimate.ci_high, over_workers ? "worker processes" : "rounds"};
  }
  const auto steps = summarize(cell.step_times_s);
  return {steps.median, steps.ci_low, steps.ci_high, "steps"};
}

const CellResult* RunSeries::cell_at(const CellSeries& series, std::size_t run) const {
  const auto& index = series.points.at(run).cell;
  return index ? &runs.at(run).report.cells.at(*index) : nullptr;
}

std::string shown_verdict(const std::optional<Verdict>& verdict) {
  if (!verdict) return "baseline";
  return *verdict == Verdict::kPass ? "unchanged" : to_string(*verdict);
}

std::string world_size_difference(const std::vector<SeriesInput>& runs) {
  const auto differs = [&runs](const SeriesInput& run) {
    return run.report.config.ranks != runs.front().report.config.ranks;
  };
  if (std::none_of(runs.begin(), runs.end(), differs)) return "";
  std::vector<std::string> sizes;
  for (const auto& run : runs) {
    const auto ranks = run.report.config.ranks;
    sizes.push_back(run.label + " " + counted(static_cast<std::size_t>(ranks), "rank", "ranks"));
  }
  return joined(sizes, ", ");
}

std::string_view to_string(SeriesOrder order) { return order == SeriesOrder::kStartTime ? "time" : "given"; }

std::string_view describe(SeriesOrder order) { return order == SeriesOrder::kStartTime ? "by start time" : "as given"; }

RunSeries build_run_series(std::vector<SeriesInput> runs, const CheckOptions& options, bool by_time) {
  require_readable_together(runs);
  RunSeries series;
  series.options = options;
  series.order = by_time ? SeriesOrder::kStartTime : SeriesOrder::kGiven;
  // The baseline is the first given wherever its start time puts it.
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (by_time) {
    std::stable_sort(order.begin(), order.end(), [&runs](std::size_t a, std::size_t b) {
      return runs[a].report.environment.timestamp_utc < runs[b].report.environment.timestamp_utc;
    });
  }
  for (std::size_t position = 0; position < order.size(); ++position) {
    if (order[position] == 0) series.baseline = position;
    series.runs.push_back(std::move(runs[order[position]]));
  }
  std::vector<const Report*> reports;
  for (const auto& run : series.runs) reports.push_back(&run.report);
  series.environment_differences = environment_differences(reports);
  series.cells = cell_rows(series);
  judge_against_baseline(series);
  return series;
}

}  // namespace ampbench::reports
