// A comparison as text, Markdown and JSON; the figures are formatted by format.h like every report.
#include <nlohmann/json.hpp>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/report_json.h"
#include "format.h"
#include "json_number.h"
#include "markdown_table.h"
#include "text_table.h"

namespace ampbench::reports {
namespace {

std::vector<std::string> comparison_header() {
  return {"cell", "baseline", "current", "time change (95% CI)", "U test p", "memory change", "divergence change"};
}

std::string change_text(const Ratio& ratio) {
  return detail::format_percent(ratio.value - 1.0, true) + " [" + detail::format_percent(ratio.ci_low - 1.0, true) +
         ", " + detail::format_percent(ratio.ci_high - 1.0, true) + "]";
}

// The cells of one comparison row; a row that could not be compared has only the label, and the
// caller shows the note across the rest.
std::vector<std::string> comparison_cells(const CellComparison& cell) {
  std::vector<std::string> cells = {cell.key.label()};
  if (!cell.comparable) return cells;
  cells.push_back(detail::format_duration(cell.base_time.median));
  cells.push_back(detail::format_duration(cell.current_time.median));
  cells.push_back(change_text(cell.time_ratio));
  cells.push_back(detail::format_p_value(cell.u_test.p_value));
  cells.push_back(cell.memory_ratio ? detail::format_percent(*cell.memory_ratio - 1.0, true) : "-");
  cells.push_back(cell.divergence_change ? detail::format_percent(*cell.divergence_change, true) : "-");
  return cells;
}

std::string missing_note(const ReportComparison& comparison) {
  std::string out;
  for (const auto& key : comparison.only_in_base) out += "only in baseline: " + key.label() + "\n";
  for (const auto& key : comparison.only_in_current) out += "only in current: " + key.label() + "\n";
  return out;
}

nlohmann::json keys_json(const std::vector<CellKey>& keys) {
  auto out = nlohmann::json::array();
  for (const auto& key : keys) out.push_back(key.label());
  return out;
}

nlohmann::json cell_json(const CellComparison& cell) {
  nlohmann::json out = {{"cell", cell.key.label()},
                        {"workload", cell.key.workload},
                        {"mode", cell.key.mode},
                        {"device", cell.key.device},
                        {"preset", cell.key.preset},
                        {"comparable", cell.comparable},
                        {"note", cell.note},
                        {"base_peak_bytes", cell.base_peak_bytes},
                        {"current_peak_bytes", cell.current_peak_bytes},
                        {"memory_ratio", detail::json_number(cell.memory_ratio)},
                        {"divergence_change", detail::json_number(cell.divergence_change)}};
  out["base_divergence"] = cell.base_divergence ? nlohmann::json(*cell.base_divergence) : nlohmann::json(nullptr);
  out["current_divergence"] =
      cell.current_divergence ? nlohmann::json(*cell.current_divergence) : nlohmann::json(nullptr);
  if (cell.comparable) {
    out["base_step_time_s"] = cell.base_time;
    out["current_step_time_s"] = cell.current_time;
    out["time_ratio"] = cell.time_ratio;
    out["u_test"] = {{"u", detail::json_number(cell.u_test.u)},
                     {"p_value", detail::json_number(cell.u_test.p_value)},
                     {"exact", cell.u_test.exact}};
  }
  return out;
}

}  // namespace

std::string render_comparison_table(const ReportComparison& comparison) {
  detail::TextTable table(comparison_header());
  for (const auto& cell : comparison.cells) {
    if (cell.comparable) {
      table.add_row(comparison_cells(cell));
    } else {
      table.add_spanning_row(comparison_cells(cell), "not compared: " + detail::one_line(cell.note, 72));
    }
  }
  return table.render() + missing_note(comparison);
}

std::string render_comparison_markdown(const ReportComparison& comparison) {
  detail::MarkdownTable table(comparison_header());
  for (const auto& cell : comparison.cells) {
    auto cells = comparison_cells(cell);
    if (!cell.comparable) cells.push_back("not compared: " + detail::one_line(cell.note, 200));
    table.add_row(std::move(cells));
  }
  std::string out = "### ampbench compare\n\n" + table.render();
  if (const auto note = missing_note(comparison); !note.empty()) out += "\n" + detail::markdown_list(note);
  return out;
}

nlohmann::json comparison_to_json(const ReportComparison& comparison) {
  auto cells = nlohmann::json::array();
  for (const auto& cell : comparison.cells) cells.push_back(cell_json(cell));
  return {{"cells", cells},
          {"only_in_base", keys_json(comparison.only_in_base)},
          {"only_in_current", keys_json(comparison.only_in_current)}};
}

}  // namespace ampbench::reports
