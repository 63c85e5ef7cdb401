// The rows every rendering of a run series shares (text, Markdown, HTML): the same columns and
// the same wording, so the page a reviewer opens reads like the terminal.
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/run_series.h"
#include "render/table_data.h"

namespace ampbench::reports::detail {

// The run compared with the baseline cell by cell: the last one that is not the baseline.
[[nodiscard]] std::size_t current_run(const RunSeries& series);
// "base.json (baseline)" or "cur.json".
[[nodiscard]] std::string run_title(const RunSeries& series, std::size_t run);

// # | run | started | ampbench | torch | cells: one row per run.
[[nodiscard]] Table runs_table(const RunSeries& series);

// field | one column per run: one row per environment difference.
[[nodiscard]] Table differences_table(const RunSeries& series);
// Said instead of the differences table when the environments match.
[[nodiscard]] std::string environments_match_note();

// cell | verdict | baseline | current | change (95% CI) | per machine probe (p) | speedup vs fp32 |
// memory | divergence (x noise floor).
struct PairRow {
  std::vector<std::string> cells;
  std::string verdict;  // shown_verdict: also the row's colour in HTML
};
[[nodiscard]] std::vector<std::string> pair_header();
[[nodiscard]] PairRow pair_row(const RunSeries& series, const CellSeries& cell);
[[nodiscard]] Table pair_table(const RunSeries& series);

// cell | one column per run: its step time and, after the baseline, the change and verdict.
[[nodiscard]] Table trend_table(const RunSeries& series);

// "cur.json: simple_net/fp16/cpu/default regressed: <reasons>" for every non-baseline point whose
// verdict is not "pass" or that has reasons.
[[nodiscard]] std::vector<std::string> detail_lines(const RunSeries& series);

// The thresholds, and for a gate the PASS/FAIL line: check's own summary of the current run.
[[nodiscard]] std::string thresholds_line(const RunSeries& series);

}  // namespace ampbench::reports::detail
