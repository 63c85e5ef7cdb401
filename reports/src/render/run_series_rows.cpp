#include "render/run_series_rows.h"

#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

std::string step_time_text(const CellResult* cell) {
  if (cell == nullptr) return "missing";
  if (cell->status != CellStatus::kOk) return "failed";
  const auto estimate = step_time_estimate(*cell);
  return format_duration_interval(estimate.value, estimate.ci_low, estimate.ci_high);
}

// The change a user sees: the raw round times over workers when both cells have rounds, else the
// median of the steps (older reports, Google Benchmark JSON).
const Ratio& seen_change(const CellComparison& comparison) {
  return comparison.raw_rounds ? comparison.raw_rounds->ratio : comparison.time_ratio;
}

std::string speedup_text(const CellResult* cell) {
  if (cell == nullptr || cell->status != CellStatus::kOk || !cell->speedup_vs_fp32) return kNone;
  return format_ratio(cell->speedup_vs_fp32->value);
}

std::string divergence_ratio_text(const std::optional<Divergence>& divergence) {
  if (!divergence) return kNone;
  if (divergence->verdict == DivergenceVerdict::kNonFiniteLoss) return std::string(to_string(divergence->verdict));
  // Far below the floor, two decimals would print 0.00x: a figure that hides it was measured.
  return divergence->ratio_to_floor < 0.01 ? std::string("<0.01x") : format_ratio(divergence->ratio_to_floor);
}

std::string divergence_change_text(const CellComparison& comparison) {
  if (!comparison.base_divergence && !comparison.current_divergence) return kNone;
  std::string text =
      divergence_ratio_text(comparison.base_divergence) + " -> " + divergence_ratio_text(comparison.current_divergence);
  const auto verdict = [](const std::optional<Divergence>& d) {
    return d ? std::string(to_string(d->verdict)) : std::string(kNone);
  };
  if (verdict(comparison.base_divergence) != verdict(comparison.current_divergence))
    text += " (" + verdict(comparison.current_divergence) + ")";
  return text;
}

}  // namespace

std::size_t current_run(const RunSeries& series) {
  for (std::size_t run = series.runs.size(); run-- > 0;) {
    if (run != series.baseline) return run;
  }
  return series.baseline;  // unreachable: a series has at least two runs
}

std::string run_title(const RunSeries& series, std::size_t run) {
  return series.runs[run].label + (run == series.baseline ? " (baseline)" : "");
}

Table runs_table(const RunSeries& series) {
  Table table({"#", "run", "started (UTC)", "ampbench", "torch", "cells"});
  for (std::size_t run = 0; run < series.runs.size(); ++run) {
    const auto& report = series.runs[run].report;
    const auto& env = report.environment;
    std::size_t failed = 0;
    for (const auto& cell : report.cells) failed += cell.status != CellStatus::kOk ? 1 : 0;
    table.add_row({std::to_string(run + 1), run_title(series, run), env.timestamp_utc,
                   env.ampbench_version + " (" + env.git_revision + ")", env.torch_version,
                   std::to_string(report.cells.size()) + (failed ? " (" + std::to_string(failed) + " failed)" : "")});
  }
  return table;
}

Table differences_table(const RunSeries& series) {
  Table table({"differs"});
  for (std::size_t run = 0; run < series.runs.size(); ++run) table.header.push_back(run_title(series, run));
  for (const auto& difference : series.environment_differences) {
    std::vector<std::string> cells = {difference.field};
    cells.insert(cells.end(), difference.values.begin(), difference.values.end());
    table.add_row(std::move(cells));
  }
  return table;
}

std::string environments_match_note() {
  return "The runs' environments match: CPU, GPUs, threads, torch, ampbench, each cell's precision settings and "
         "the run's settings.";
}

std::vector<std::string> pair_header() {
  return {"cell",
          "verdict",
          "baseline",
          "current",
          "change (95% CI)",
          "per machine probe (p)",
          "speedup vs fp32",
          "memory",
          "divergence (x floor)"};
}

PairRow pair_row(const RunSeries& series, const CellSeries& cell) {
  const auto current = current_run(series);
  const auto& point = cell.points[current];
  PairRow row;
  row.verdict = shown_verdict(point.verdict);
  row.cells = {cell.key.label(), row.verdict, step_time_text(series.cell_at(cell, series.baseline)),
               step_time_text(series.cell_at(cell, current))};
  const auto& comparison = point.against_baseline;
  if (comparison && comparison->comparable) {
    row.cells.push_back(format_change_ci(seen_change(*comparison)));
    row.cells.push_back(comparison->normalised_rounds
                            ? format_change_ci(comparison->normalised_rounds->ratio) + ", p " +
                                  format_p_value(comparison->normalised_rounds->p_value)
                            : kNone);
  } else {
    row.cells.insert(row.cells.end(), {kNone, kNone});
  }
  const auto base_speedup = speedup_text(series.cell_at(cell, series.baseline));
  const auto current_speedup = speedup_text(series.cell_at(cell, current));
  row.cells.push_back(base_speedup == kNone && current_speedup == kNone ? kNone
                                                                        : base_speedup + " -> " + current_speedup);
  row.cells.push_back(comparison && comparison->memory_ratio ? format_percent(*comparison->memory_ratio - 1.0, true)
                                                             : kNone);
  row.cells.push_back(comparison ? divergence_change_text(*comparison) : kNone);
  return row;
}

Table pair_table(const RunSeries& series) {
  Table table(pair_header());
  for (const auto& cell : series.cells) table.add_row(pair_row(series, cell).cells);
  return table;
}

namespace {

std::vector<std::string> trend_row(const RunSeries& series, const CellSeries& cell) {
  std::vector<std::string> row = {cell.key.label()};
  for (std::size_t run = 0; run < series.runs.size(); ++run) {
    const CellResult* result = series.cell_at(cell, run);
    const auto& point = cell.points[run];
    std::string text = step_time_text(result);
    if (run != series.baseline && result != nullptr) {
      if (point.against_baseline && point.against_baseline->comparable) {
        text += " " + format_percent(seen_change(*point.against_baseline).value - 1.0, true) + " " +
                shown_verdict(point.verdict);
      } else {
        text += " (" + shown_verdict(point.verdict) + ")";
      }
    }
    row.push_back(text);
  }
  return row;
}

}  // namespace

Table trend_table(const RunSeries& series) {
  Table table({"cell"});
  for (std::size_t run = 0; run < series.runs.size(); ++run) table.header.push_back(run_title(series, run));
  for (const auto& cell : series.cells) table.add_row(trend_row(series, cell));
  return table;
}

std::vector<std::string> detail_lines(const RunSeries& series) {
  std::vector<std::string> lines;
  for (std::size_t run = 0; run < series.runs.size(); ++run) {
    if (run == series.baseline) continue;
    for (const auto& cell : series.cells) {
      const auto& point = cell.points[run];
      if (point.verdict == Verdict::kPass && point.reasons.empty()) continue;
      lines.push_back(series.runs[run].label + ": " + cell.key.label() + " " + shown_verdict(point.verdict) + ": " +
                      joined(describe_reasons(point.reasons), "; "));
    }
  }
  return lines;
}

std::string thresholds_line(const RunSeries& series) {
  return "Verdicts by check's rules against the baseline (" + describe_check_options(series.options) +
         "): unchanged = no change beyond the threshold (per machine probe when the runs have rounds); improved / "
         "regressed = beyond it and significant (and seen in the raw step time); inconclusive = beyond it, within the "
         "runs' noise.";
}

}  // namespace ampbench::reports::detail
