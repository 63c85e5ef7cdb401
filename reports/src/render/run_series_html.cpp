// The comparison page: what differs between the runs' environments first, then the current run
// against the baseline cell by cell with check's verdicts in colour, the charts (the change per
// cell with its interval against the threshold, step time and speedup over the runs), the trend
// table with more than two runs, and the reasons behind each verdict.
#include <nlohmann/json.hpp>

#include "ampbench/reports/counted.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/run_series.h"
#include "render/html_assets.h"
#include "render/html_page.h"
#include "render/run_series_rows.h"
#include "render/summary_rows.h"

namespace ampbench::reports {
namespace {

using detail::html_cells;
using detail::html_escaped;
using detail::html_table;

std::string environment_html(const RunSeries& series) {
  if (series.environment_differences.empty())
    return "<p class=\"note\" id=\"environments-match\">" + html_escaped(detail::environments_match_note()) + "</p>\n";
  const auto differences = detail::differences_table(series);
  return "<p class=\"warning\">The runs differ in " + counted(differences.rows.size(), "respect", "respects") +
         "; read the changes below with that in mind.</p>\n" + html_table("differences", differences);
}

// The pair table, each row coloured by its verdict (the second column).
std::string pairs_html(const RunSeries& series) {
  std::string out = "<div class=\"table-wrap\"><table class=\"pairs\"><thead><tr>" +
                    html_cells(detail::pair_header(), "th") + "</tr></thead><tbody>\n";
  for (const auto& cell : series.cells) {
    const auto row = detail::pair_row(series, cell);
    out += "<tr data-verdict=\"" + html_escaped(row.verdict) + "\">";
    for (std::size_t column = 0; column < row.cells.size(); ++column) {
      out += column == 1 ? "<td class=\"verdict\">" + html_escaped(row.cells[column]) + "</td>"
                         : "<td>" + html_escaped(row.cells[column]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string details_html(const RunSeries& series) {
  const auto lines = detail::detail_lines(series);
  if (lines.empty()) return "<p class=\"note\">No cell changed beyond its threshold.</p>\n";
  std::string out = "<ul class=\"details\">\n";
  for (const auto& line : lines) out += "<li>" + html_escaped(line) + "</li>\n";
  return out + "</ul>\n";
}

constexpr const char* kSeriesHowToRead =
    "<h2>How to read this</h2>\n<ul class=\"note\">\n"
    "<li>Step time: each run's estimate with its 95% interval, over the run's worker processes (or its rounds, "
    "or its steps for older reports and Google Benchmark JSON), as in the run report.</li>\n"
    "<li>Change: current / baseline &minus; 1 of the raw step time with its 95% interval, what a user sees. "
    "Per machine probe: the same after dividing every round by the machine probe timed in the same rotation, so "
    "a machine that is slower as a whole cancels out; its p value is Welch&rsquo;s t test over the runs&rsquo; "
    "worker processes.</li>\n"
    "<li>Verdict, by <code>ampbench check</code>&rsquo;s rules and thresholds (stated above): "
    "<span class=\"badge\" data-verdict=\"regressed\">regressed</span> / "
    "<span class=\"badge\" data-verdict=\"improved\">improved</span>: beyond the threshold per machine probe, "
    "significant, and beyond it in the raw time too (memory and divergence regress on their own rules); "
    "<span class=\"badge\" data-verdict=\"inconclusive\">inconclusive</span>: beyond the threshold but the runs' "
    "noise cannot resolve it; <span class=\"badge\" data-verdict=\"unchanged\">unchanged</span>: within the "
    "threshold; missing / not compared: a run lacks the cell or it failed.</li>\n"
    "<li>Divergence (x floor): the numerics pass's eval-loss difference from FP32 as a multiple of the noise "
    "floor; &ldquo;diverged&rdquo; beyond 3x.</li>\n</ul>\n";

}  // namespace

std::string render_series_html(const RunSeries& series, bool gate) {
  const auto current = detail::current_run(series);
  std::string page = detail::html_page_head(gate ? "ampbench check" : "ampbench comparison");
  page += "<p class=\"machine\">" + html_escaped(detail::machine_line(series.runs[current].report)) + "</p>\n";
  if (gate) {
    const auto& result = series.checks[current];
    page += std::string("<p class=\"gate\" data-passed=\"") + (result.passed ? "true" : "false") + "\">" +
            html_escaped(check_summary_line(result, series.options)) + "</p>\n";
  }
  page += detail::html_render_status();
  page += "<h2>Runs</h2>\n" + html_table("runs", detail::runs_table(series));
  page += "<h2>Environment</h2>\n" + environment_html(series);
  page += "<h2>" +
          html_escaped(series.runs[current].label + " against the baseline " + series.runs[series.baseline].label) +
          "</h2>\n<p class=\"note\">" + html_escaped(detail::thresholds_line(series)) + "</p>\n" + pairs_html(series);
  page += "<h2>Step-time change per cell</h2>\n<div class=\"charts\" id=\"chart-change\"></div>\n";
  page += "<h2>Over the runs (" + std::string(describe(series.order)) + ")</h2>\n";
  if (series.runs.size() > 2) {
    page += html_table("trend", detail::trend_table(series));
  }
  page +=
      "<h3>Step time</h3>\n<div class=\"charts\" id=\"chart-trend\"></div>\n"
      "<h3>Speedup vs FP32</h3>\n<div class=\"charts\" id=\"chart-speedup-trend\"></div>\n";
  page += "<h2>Details</h2>\n" + details_html(series) + kSeriesHowToRead;
  page += detail::html_page_tail(json_text(series_to_json(series), -1), detail::kHtmlComparisonScript);
  return page;
}

}  // namespace ampbench::reports
