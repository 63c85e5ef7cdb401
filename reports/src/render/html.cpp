#include "ampbench/reports/html.h"

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "ampbench/reports/explain.h"
#include "ampbench/reports/report_json.h"
#include "render/breakdown_rows.h"
#include "render/data_parallel_rows.h"
#include "render/device_state_notes.h"
#include "render/format.h"
#include "render/headline_rows.h"
#include "render/html_assets.h"
#include "render/html_page.h"
#include "render/layer_rows.h"
#include "render/numerics_notes.h"
#include "render/summary_rows.h"
#include "render/text_table.h"

namespace ampbench::reports {
namespace {

// The divergence sentence may wrap before its parenthesis, never inside it, so that the summary
// fits a 1280-pixel window; every other figure stays on one line.
std::string wrapping_cell(const std::string& text) {
  std::vector<std::string> words;
  for (const auto& word : detail::unbreakable_words(text)) {
    std::string escaped = detail::html_escaped(word);
    for (auto at = escaped.find(' '); at != std::string::npos; at = escaped.find(' ', at))
      escaped.replace(at, 1, "&nbsp;");
    words.push_back(std::move(escaped));
  }
  return "<td class=\"wraps\">" + joined(words, " ") + "</td>";
}

std::string summary_row_cells(const std::vector<std::string>& cells, std::size_t wrapping_column) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i)
    out += i == wrapping_column ? wrapping_cell(cells[i]) : detail::html_cells({cells[i]}, "td");
  return out;
}

std::string summary_table(const Report& report) {
  const auto columns = detail::summary_columns(report);
  const auto header = detail::summary_header(columns);
  const auto divergence_column =
      static_cast<std::size_t>(std::find(header.begin(), header.end(), detail::kDivergenceColumn) - header.begin());
  std::string out = "<div class=\"table-wrap\"><table class=\"summary\"><thead><tr>" +
                    detail::html_cells(header, "th") + "</tr></thead><tbody>\n";
  for (const auto& cell : report.cells) {
    const auto row = detail::summary_row(cell, columns);
    out += "<tr>" + summary_row_cells(row.cells, divergence_column);
    if (row.failed) {
      out += "<td class=\"error\" colspan=\"" + std::to_string(header.size() - row.cells.size()) +
             "\">failed: " + detail::html_escaped(row.error) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

// The answer first: a line per workload, then the step time and peak memory of each mode against
// FP32's side by side (report.js draws the two grouped bar charts into #chart-glance).
std::string at_a_glance(const Report& report) {
  std::string items;
  for (const auto& headline : detail::workload_headlines(report)) {
    items += "<li><strong>" + detail::html_escaped(headline.workload) +
             "</strong>: " + detail::html_escaped(detail::headline_text(headline)) + "</li>\n";
  }
  if (items.empty()) return "";
  return "<h2>At a glance</h2>\n<ul class=\"headline\">\n" + items +
         "</ul>\n<div class=\"charts\" id=\"chart-glance\"></div>\n";
}

std::string data_parallel_section(const Report& report) {
  const auto parallel = detail::data_parallel_table(report);
  if (parallel.empty()) return "";
  return "<h2>Data parallel</h2>\n" + detail::html_table("data-parallel", parallel) + "<p class=\"note\">" +
         detail::html_escaped(detail::data_parallel_note()) + "</p>\n";
}

std::string peaks_paragraph(const Report& report) {
  std::string out;
  for (const auto& note : {detail::gemm_peaks_note(report.environment), detail::mfu_note(report)}) {
    if (!note.empty()) out += "<p class=\"machine\">" + detail::html_escaped(note) + "</p>\n";
  }
  return out;
}

std::string chart_section(const char* title, const char* id, const std::string& intro = "") {
  return std::string("<h2>") + title + "</h2>\n" + intro + "<div class=\"charts\" id=\"" + id + "\"></div>\n";
}

// The pass's cost, the scalers' start-up, and the passes that failed (their cells have no divergence).
std::string numerics_intro(const Report& report) {
  const auto cost = detail::numerics_cost_note(report);
  std::string out =
      cost.empty() ? "" : "<p class=\"note\" id=\"numerics-cost\">" + detail::html_escaped(cost) + "</p>\n";
  if (const auto calibration = detail::scale_calibration_note(report); !calibration.empty())
    out += "<p class=\"note\" id=\"scale-calibration\">" + detail::html_escaped(calibration) + "</p>\n";
  for (const auto& failure : detail::numerics_failures(report))
    out += "<p class=\"error numerics-failed\">Numerics pass failed: " + detail::html_escaped(failure) + "</p>\n";
  return out;
}

// "Why": the findings per cell, then where each profiled cell's step time goes.
std::string why_section(const Report& report) {
  std::string out;
  if (!report.explanation.empty()) {
    out += "<h2>Why</h2>\n";
    std::string cell;
    for (const auto& finding : report.explanation) {
      if (finding.cell != cell) {
        out += (cell.empty() ? "" : "</ul>\n") + std::string("<h3>") + detail::html_escaped(finding.cell) +
               "</h3>\n<ul class=\"why\">\n";
        cell = finding.cell;
      }
      out += "<li data-finding=\"" + detail::html_escaped(finding.id) + "\">" + detail::html_escaped(finding.sentence) +
             "</li>\n";
    }
    out += "</ul>\n";
  }
  const auto breakdown = detail::breakdown_table(report);
  if (breakdown.table.empty()) return out;
  return out +
         "<h2>Where the step time goes</h2>\n<p class=\"note\">Profiled steps after the timed ones; self time per "
         "step by category.</p>\n" +
         detail::html_table("breakdown", breakdown.table) +
         (breakdown.profiling_cost_note.empty() ? ""
                                                : "<p class=\"note\" id=\"profiling-cost\">" +
                                                      detail::html_escaped(breakdown.profiling_cost_note) + "</p>\n");
}

// The numerics pass's ranges per layer: per cell its table (layer_rows.h) and a heat map of the
// layers x observed steps, coloured by the scaled gradient's headroom below float16's maximum.
std::string layer_section(const Report& report) {
  const auto tables = detail::layer_tables(report, SIZE_MAX);
  if (tables.empty()) return "";
  std::string out = "<h2>Ranges per layer (numerics pass)</h2>\n<p class=\"note\">" +
                    detail::html_escaped(detail::layer_table_legend()) +
                    " Heat map: the headroom of each module's scaled gradient on each observed step.</p>\n";
  for (const auto& table : tables) {
    out += "<h3>" + detail::html_escaped(table.cell) + "</h3>\n<p class=\"note\">" +
           detail::html_escaped(joined(table.lines, "; ")) + "</p>\n" + detail::html_table("layers", table.table);
    std::vector<std::string> header{"layer \\ step"};
    for (const auto step : table.steps) header.push_back(std::to_string(step));
    out += "<div class=\"table-wrap\"><table class=\"layer-heatmap\" data-cell=\"" + detail::html_escaped(table.cell) +
           "\"><thead><tr>" + detail::html_cells(header, "th") + "</tr></thead><tbody>\n";
    for (const auto& row : table.heat) {
      out += "<tr><th>" + detail::html_escaped(row.module) + "</th>";
      for (const auto& cell : row.steps) {
        out += "<td class=\"heat " + cell.level + "\" title=\"" + detail::html_escaped(cell.detail) + "\">" +
               detail::html_escaped(cell.text) + "</td>";
      }
      out += "</tr>\n";
    }
    out += "</tbody></table></div>\n";
  }
  return out;
}

constexpr const char* kReportHowToRead =
    "<h2>How to read this</h2>\n<ul class=\"note\">\n"
    "<li>Step time: the modes of a workload take turns step by step, in rounds, in several worker processes per "
    "workload started at different times of the run; each process gives one value (the geometric mean of its "
    "rounds), and the whiskers are the 95% t interval over the processes: where a rerun on this machine is "
    "expected to land (one worker per workload: over rounds; reports from before rounds: the median of the "
    "steps, order-statistic interval).</li>\n"
    "<li>Speedup: FP32 / this mode, round by round in the same rounds (drift cancels in each pair), per process, "
    "then over processes with a 95% t interval; the dashed line is 1.0x.</li>\n"
    "<li>% of peak: achieved FLOP/s over the at::mm peak this run measured for the cell's compute dtype on this "
    "machine (not the datasheet figure).</li>\n"
    "<li>Loss divergence: apart from the timed steps, every mode of a workload trains a numerics pass: the same "
    "fixed number of steps (<code>--numerics-steps</code>; the preset&rsquo;s default) from the same initial weights "
    "on the same batches, evaluated every few steps in float32 on held-out batches that no mode trains on. FP32 "
    "trains it a second time with the data order reversed: the noise floor (the shaded band), how far a change that "
    "should not matter moves the eval loss. The figures are means over the last quarter of the evaluations: "
    "|AMP &minus; FP32| / FP32 eval loss against the floor&rsquo;s |floor &minus; FP32| / FP32 (a floor below 0.01% "
    "counts as 0.01%). &ldquo;within the noise floor&rdquo;: at most 1x the floor; &ldquo;above the floor&rdquo;: up "
    "to 3x, not clearly beyond what an irrelevant change does; &ldquo;diverged&rdquo;: more than 3x (the dashed "
    "line); &ldquo;non-finite loss&rdquo;: an AMP eval loss was NaN or infinite. The pass&rsquo;s cost is stated "
    "above its charts.</li>\n"
    "<li>GradScaler scale: red dots mark steps skipped because a gradient was not finite.</li>\n"
    "<li>Why and where the step time goes: three profiled steps per cell after the timed ones, under LibTorch&rsquo;s "
    "profiler; each op&rsquo;s self time by category (matrix products by dtype, casts, ops kept in float32, "
    "elementwise, optimizer, GradScaler, the rest); the findings rest on them and on the GEMM peaks "
    "(<code>ampbench explain</code>).</li>\n</ul>\n";

}  // namespace

std::string render_html(const Report& report) {
  std::string page = detail::html_page_head("ampbench report") + "<p class=\"machine\">" +
                     detail::html_escaped(detail::machine_line(report)) + "</p>\n" + detail::html_render_status() +
                     at_a_glance(report) + peaks_paragraph(report) + "<h2>Summary</h2>\n" + summary_table(report);
  for (const auto& note :
       {detail::failed_cells_note(report), detail::reruns_note(report), detail::allocator_note(report.environment),
        detail::slow_machine_note(report), detail::gpu_state_note(report), detail::energy_note(report),
        detail::gpu_verification_note(report), detail::counted_flops_note(report)}) {
    if (!note.empty()) page += "<p class=\"note\">" + detail::html_escaped(note) + "</p>\n";
  }
  page += data_parallel_section(report) + why_section(report);
  page += chart_section("Step time per mode", "chart-step-time") + chart_section("Speedup vs FP32", "chart-speedup") +
          chart_section("Peak memory per mode", "chart-memory") + chart_section("Energy per step", "chart-energy") +
          chart_section("Divergence and loss (numerics pass)", "chart-numerics", numerics_intro(report)) +
          layer_section(report) + chart_section("Gradient norm (timed steps)", "chart-loss") +
          chart_section("GradScaler scale", "chart-scale") +
          chart_section("Tensor-core utilisation", "chart-tensor-cores") + kReportHowToRead;
  page += detail::html_page_tail(report_to_text(report), detail::kHtmlScript);
  return page;
}

}  // namespace ampbench::reports
