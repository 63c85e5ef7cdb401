// A run series as terminal text, Markdown and JSON, from the rows run_series_rows.h shares with
// the HTML page.
#include <nlohmann/json.hpp>

#include "ampbench/reports/report_json.h"
#include "ampbench/reports/run_series.h"
#include "io/json_number.h"
#include "render/format.h"
#include "render/markdown_table.h"
#include "render/run_series_rows.h"
#include "render/summary_rows.h"
#include "render/text_table.h"

namespace ampbench::reports {
namespace {

// Renders the same sections into text or Markdown, each table drawn by `draw`.
std::string render_sections(const RunSeries& series, const char* heading_prefix,
                            std::string (*draw)(const detail::Table&)) {
  const auto heading = [&](const std::string& title) { return std::string(heading_prefix) + title + "\n\n"; };
  std::string out = heading("Runs") + draw(detail::runs_table(series)) + "\n";
  out += heading("Environment");
  out += series.environment_differences.empty() ? detail::environments_match_note() + "\n\n"
                                                : draw(detail::differences_table(series)) + "\n";
  const auto current = detail::current_run(series);
  out += heading(series.runs[current].label + " against the baseline " + series.runs[series.baseline].label) +
         draw(detail::pair_table(series)) + "\n";
  if (series.runs.size() > 2) {
    out += heading("Step time over the runs (" + std::string(describe(series.order)) + ")") +
           draw(detail::trend_table(series)) + "\n";
  }
  return out;
}

std::string terminal_table(const detail::Table& table) { return detail::text_table(table); }

nlohmann::json estimate_json(const CellResult& cell) {
  const auto estimate = step_time_estimate(cell);
  return {{"value", detail::json_number(estimate.value)},
          {"ci_low", detail::json_number(estimate.ci_low)},
          {"ci_high", detail::json_number(estimate.ci_high)},
          {"over", estimate.over}};
}

nlohmann::json ratio_json(const Ratio& ratio) {
  return {{"value", detail::json_number(ratio.value)},
          {"ci_low", detail::json_number(ratio.ci_low)},
          {"ci_high", detail::json_number(ratio.ci_high)}};
}

nlohmann::json against_json(const SeriesPoint& point) {
  nlohmann::json out = {{"verdict", shown_verdict(point.verdict)}, {"reasons", describe_reasons(point.reasons)}};
  if (!point.against_baseline) return out;
  const auto& comparison = *point.against_baseline;
  out["comparable"] = comparison.comparable;
  out["memory_ratio"] = detail::json_number(comparison.memory_ratio);
  out["divergence_change"] = detail::json_number(comparison.divergence_change);
  if (!comparison.comparable) return out;
  out["time_ratio"] = ratio_json(comparison.raw_rounds ? comparison.raw_rounds->ratio : comparison.time_ratio);
  out["time_ratio_over"] = comparison.raw_rounds ? "rounds" : "steps";
  if (comparison.normalised_rounds) {
    out["per_probe_ratio"] = ratio_json(comparison.normalised_rounds->ratio);
    out["per_probe_p_value"] = detail::json_number(comparison.normalised_rounds->p_value);
  }
  return out;
}

nlohmann::json point_json(const RunSeries& series, const CellSeries& cell, std::size_t run) {
  const CellResult* result = series.cell_at(cell, run);
  nlohmann::json out = {
      {"status", result == nullptr ? std::string("missing") : std::string(to_string(result->status))}};
  if (run != series.baseline) out["against_baseline"] = against_json(cell.points[run]);
  if (result == nullptr) return out;
  if (result->status != CellStatus::kOk) {
    out["error"] = result->error;
    return out;
  }
  out["step_time_s"] = estimate_json(*result);
  out["speedup_vs_fp32"] = result->speedup_vs_fp32 ? ratio_json(*result->speedup_vs_fp32) : nlohmann::json(nullptr);
  out["peak_tensor_bytes"] = result->memory.peak_tensor_bytes;
  out["divergence"] = result->divergence ? nlohmann::json(*result->divergence) : nlohmann::json(nullptr);
  return out;
}

}  // namespace

std::string render_series_table(const RunSeries& series) {
  std::string out = render_sections(series, "", terminal_table);
  for (const auto& line : detail::detail_lines(series)) out += detail::one_line(line, 400) + "\n";
  return out + detail::thresholds_line(series) + "\n";
}

std::string render_series_markdown(const RunSeries& series) {
  std::string out = "### ampbench compare\n\n" + render_sections(series, "#### ", detail::markdown_table);
  std::string details;
  for (const auto& line : detail::detail_lines(series)) details += line + "\n";
  if (!details.empty()) out += "#### Details\n\n" + detail::markdown_list(details) + "\n";
  return out + detail::thresholds_line(series) + "\n";
}

nlohmann::json series_to_json(const RunSeries& series) {
  auto runs = nlohmann::json::array();
  for (std::size_t run = 0; run < series.runs.size(); ++run) {
    const auto& env = series.runs[run].report.environment;
    runs.push_back({{"label", series.runs[run].label},
                    {"timestamp_utc", env.timestamp_utc},
                    {"ampbench_version", env.ampbench_version},
                    {"git_revision", env.git_revision},
                    {"torch_version", env.torch_version},
                    {"machine", detail::machine_line(series.runs[run].report)}});
  }
  auto differences = nlohmann::json::array();
  for (const auto& difference : series.environment_differences)
    differences.push_back({{"field", difference.field}, {"values", difference.values}});
  auto cells = nlohmann::json::array();
  for (const auto& cell : series.cells) {
    auto points = nlohmann::json::array();
    for (std::size_t run = 0; run < series.runs.size(); ++run) points.push_back(point_json(series, cell, run));
    cells.push_back({{"cell", cell.key.label()},
                     {"workload", cell.key.workload},
                     {"mode", cell.key.mode},
                     {"device", cell.key.device},
                     {"preset", cell.key.preset},
                     {"ranks", cell.key.ranks},
                     {"runs", points}});
  }
  const auto& gate = series.checks[detail::current_run(series)];
  nlohmann::json thresholds = {{"max_slowdown", series.options.max_slowdown},
                               {"max_memory_growth", series.options.max_memory_growth},
                               {"max_divergence", detail::json_number(series.options.max_divergence)},
                               {"alpha", series.options.alpha},
                               {"strict", series.options.strict}};
  return {{"schema", kComparisonSchema},
          {"order", to_string(series.order)},
          {"baseline", series.baseline},
          {"current", detail::current_run(series)},
          {"runs", runs},
          {"thresholds", thresholds},
          {"environment_differences", differences},
          {"cells", cells},
          {"check",
           {{"passed", gate.passed},
            {"regressed", gate.regressed},
            {"inconclusive", gate.inconclusive},
            {"missing", gate.missing},
            {"summary", check_summary_line(gate, series.options)}}}};
}

}  // namespace ampbench::reports
