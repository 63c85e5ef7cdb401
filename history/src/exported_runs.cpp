#include "ampbench/history/exported_runs.h"

#include <cstdint>
#include <limits>
#include <sstream>
#include <utility>

#include "ampbench/reports/json_reader.h"
#include "ampbench/reports/report_json.h"

namespace ampbench::history {
namespace {

using nlohmann::json;
using reports::detail::fail_at;
using reports::detail::ObjectReader;

Testbed read_testbed(const json& value, const std::string& path) {
  ObjectReader fields(value, path);
  Testbed testbed;
  testbed.name = fields.text("name");
  testbed.fingerprint = fields.text("fingerprint");
  const auto facts_path = fields.path_of("facts");
  testbed.facts = reports::detail::read_array<std::pair<std::string, std::string>>(
      fields.required("facts"), facts_path, [](const json& fact, const std::string& fact_path) {
        if (!fact.is_array() || fact.size() != 2) fail_at(fact_path, "expected [name, value], got " + fact.dump());
        return std::pair{reports::detail::read_string(fact[0], fact_path + "[0]"),
                         reports::detail::read_string(fact[1], fact_path + "[1]")};
      });
  // The store finds a run's testbed by name and compares runs by it: facts edited after the export
  // would put runs of another machine into this testbed's series.
  if (const auto expected = fingerprint_of(testbed.facts); testbed.fingerprint != expected) {
    fail_at(fields.path_of("fingerprint"),
            "\"" + testbed.fingerprint + "\" is not the fingerprint of the facts (\"" + expected + "\")");
  }
  fields.finish();
  return testbed;
}

FigureValue read_figure_value(const json& value, const std::string& path) {
  if (!value.is_array() || value.size() != 4) {
    fail_at(path, "expected [value, ci_low, ci_high, draws], got " + value.dump());
  }
  return {reports::detail::read_finite_number(value[0], path + "[0]"),
          reports::detail::read_number_or_null(value[1], path + "[1]"),
          reports::detail::read_number_or_null(value[2], path + "[2]"),
          reports::detail::read_integer_in(value[3], path + "[3]", 0, std::numeric_limits<std::int64_t>::max())};
}

CellFigures read_cell(const json& value, const std::string& path) {
  ObjectReader fields(value, path);
  CellFigures cell;
  cell.cell = fields.text("cell");
  cell.status =
      fields.either("status", "ok", "failed") == "ok" ? reports::CellStatus::kOk : reports::CellStatus::kFailed;
  const auto figures_path = fields.path_of("figures");
  const auto& figures = fields.required("figures");
  if (!figures.is_object()) fail_at(figures_path, "expected an object of figures, got " + figures.dump());
  for (const auto& [name, figure_value] : figures.items()) {
    const auto figure = figure_named(name);
    if (!figure) {
      fail_at(figures_path + "." + name,
              "not a figure of the history (step_time_per_probe, step_time_s, speedup, peak_tensor_bytes, "
              "divergence_ratio)");
    }
    cell.figures.emplace_back(*figure, read_figure_value(figure_value, figures_path + "." + name));
  }
  order_figures(cell);
  fields.finish();
  return cell;
}

json read_object(ObjectReader& fields, std::string_view key) {
  const auto& value = fields.required(key);
  if (!value.is_object()) fail_at(fields.path_of(key), "expected an object, got " + std::string(value.type_name()));
  return value;
}

StoredRun read_run(const json& line) {
  ObjectReader fields(line, "");
  if (const auto schema = fields.text("schema"); schema != kExportSchema) {
    fail_at("schema", std::string("expected \"") + kExportSchema + "\", got \"" + schema + "\"");
  }
  StoredRun run;
  run.testbed = read_testbed(fields.required("testbed"), "testbed");
  run.digest = fields.text("digest");
  if (run.digest.empty()) fail_at("digest", "empty: it is what tells a run already stored");
  run.commit = fields.text("commit");
  run.branch = fields.text("branch");
  run.started_utc = fields.text("started_utc");
  run.added_utc = fields.text("added_utc");
  run.source = fields.text("source");
  run.environment = read_object(fields, "environment");
  run.config = read_object(fields, "config");
  run.cells = reports::detail::read_array<CellFigures>(fields.required("cells"), "cells", read_cell);
  fields.finish();
  return run;
}

std::string exported_line(const StoredRun& run) {
  auto cells = json::array();
  for (const auto& cell : run.cells) {
    auto figures = json::object();
    for (const auto& [figure, value] : cell.figures) {
      figures[std::string(to_string(figure))] = json::array({value.value, value.ci_low, value.ci_high, value.draws});
    }
    cells.push_back(
        {{"cell", cell.cell}, {"status", std::string(reports::to_string(cell.status))}, {"figures", figures}});
  }
  const json line = {
      {"schema", kExportSchema},
      {"testbed",
       {{"name", run.testbed.name}, {"fingerprint", run.testbed.fingerprint}, {"facts", facts_json(run.testbed)}}},
      {"digest", run.digest},
      {"commit", run.commit},
      {"branch", run.branch},
      {"started_utc", run.started_utc},
      {"added_utc", run.added_utc},
      {"source", run.source},
      {"environment", run.environment},
      {"config", run.config},
      {"cells", cells}};
  return reports::json_text(line) + "\n";
}

}  // namespace

std::string exported_lines(const std::vector<StoredRun>& runs) {
  std::string text;
  for (const auto& run : runs) text += exported_line(run);
  return text;
}

std::vector<StoredRun> read_exported_runs(const std::string& text, const std::string& source_name) {
  std::vector<StoredRun> runs;
  std::istringstream lines(text);
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto where = source_name + " line " + std::to_string(number);
    json parsed;
    try {
      parsed = reports::parse_json_text(line, where);  // its errors start with `where`
    } catch (const reports::ReportError& error) {
      throw HistoryError(error.what());
    }
    try {
      runs.push_back(read_run(parsed));
    } catch (const reports::ReportError& error) {  // the field readers name only the field
      throw HistoryError(where + ": " + error.what());
    }
  }
  return runs;
}

}  // namespace ampbench::history
