// The history's export format: what export_lines writes, read_exported_runs reads back to the bit,
// and every kind of bad line is refused with its line number and the field that is wrong, in
// ampbench's own words (no JSON library's exception text).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampbench/history/exported_runs.h"
#include "ampbench/history/run_figures.h"
#include "ampbench/history/testbed.h"
#include "ampbench/reports/run_config.h"
#include "history_reports.h"
#include "support/thrown_message.h"

namespace {

using ampbench::history::exported_lines;
using ampbench::history::HistoryError;
using ampbench::history::read_exported_runs;
using ampbench::history::StoredRun;
using nlohmann::json;

StoredRun sample_run(int run) {
  const auto report = ampbench::testing::history_run(run);
  return {ampbench::history::testbed_of(report),
          "00000000000000" + std::to_string(10 + run),
          "c" + std::to_string(run),
          "main",
          report.environment.timestamp_utc,
          "2026-11-29T16:00:00Z",
          "run" + std::to_string(run) + ".json",
          report.environment,
          ampbench::reports::run_config_to_json(report.config),
          ampbench::history::run_figures(report)};
}

std::string error_of(const std::string& text) {
  return ampbench::testing::thrown_message<HistoryError>([&] { (void)read_exported_runs(text, "runs.jsonl"); });
}

// The first sample run's line, changed by `edit`, as the second line of a file.
std::string edited(const std::function<void(json&)>& edit) {
  auto line = json::parse(exported_lines({sample_run(0)}));
  edit(line);
  return exported_lines({sample_run(1)}) + line.dump() + "\n";
}

TEST(ExportedRuns, ReadBackToTheBitWithBlankLinesSkipped) {
  const std::vector<StoredRun> runs = {sample_run(0), sample_run(1)};
  const auto text = exported_lines(runs);
  ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  const auto first_line = text.substr(0, text.find('\n') + 1);
  const auto back = read_exported_runs("\n" + first_line + "  \n" + text.substr(first_line.size()), "runs.jsonl");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(exported_lines(back), text);
  EXPECT_EQ(back[1].digest, runs[1].digest);
  EXPECT_EQ(back[0].testbed.facts, runs[0].testbed.facts);
  ASSERT_EQ(back[0].cells.size(), runs[0].cells.size());
  for (std::size_t i = 0; i < runs[0].cells.size(); ++i) {
    ASSERT_EQ(back[0].cells[i].figures.size(), runs[0].cells[i].figures.size());
    for (std::size_t j = 0; j < runs[0].cells[i].figures.size(); ++j) {
      EXPECT_EQ(back[0].cells[i].figures[j].first, runs[0].cells[i].figures[j].first);  // kFigures order
      EXPECT_EQ(back[0].cells[i].figures[j].second.value, runs[0].cells[i].figures[j].second.value);
      EXPECT_EQ(back[0].cells[i].figures[j].second.draws, runs[0].cells[i].figures[j].second.draws);
    }
  }
  EXPECT_TRUE(read_exported_runs("\n\n", "runs.jsonl").empty());
}

TEST(ExportedRuns, EveryBadLineIsNamedByItsNumberAndField) {
  // The sample's first cell that ran (a failed cell has no figures), and its first figure's name.
  const auto sample = json::parse(exported_lines({sample_run(0)}));
  std::size_t ran = 0;
  while (sample["cells"][ran]["figures"].empty()) ++ran;
  const auto cell = "cells[" + std::to_string(ran) + "]";
  const auto figure = sample["cells"][ran]["figures"].begin().key();
  const std::vector<std::pair<std::function<void(json&)>, std::string>> cases = {
      {[](json& line) { line["schema"] = 1; }, "line 2: schema: expected a string, got number"},
      {[](json& line) { line["schema"] = "ampbench.history-run/2"; },
       "line 2: schema: expected \"ampbench.history-run/1\", got \"ampbench.history-run/2\""},
      {[](json& line) { line.erase("testbed"); }, "line 2: testbed: missing field"},
      {[](json& line) { line["comment"] = "kept by hand"; }, "line 2: comment: unknown field"},
      {[](json& line) { line["testbed"]["facts"][0] = "cpu_model"; },
       "line 2: testbed.facts[0]: expected [name, value], got \"cpu_model\""},
      {[](json& line) { line["testbed"]["facts"][0][1] = "another CPU"; },
       "line 2: testbed.fingerprint: \""},  // "... is not the fingerprint of the facts", below
      {[](json& line) { line["digest"] = ""; }, "line 2: digest: empty"},
      {[](json& line) { line["environment"] = json::array(); }, "line 2: environment: expected an object, got array"},
      {[](json& line) { line["cells"][0]["status"] = "maybe"; },
       "line 2: cells[0].status: expected \"ok\" or \"failed\", got \"maybe\""},
      {[](json& line) {
         line["cells"][0]["figures"]["speed"] = json::array({1, 1, 1, 2});
       },
       "line 2: cells[0].figures.speed: not a figure of the history"},
      {[&](json& line) {
         line["cells"][ran]["figures"][figure] = json::array({1.0, 0.9, 1.1});
       },
       "line 2: " + cell + ".figures." + figure + ": expected [value, ci_low, ci_high, draws], got [1.0,0.9,1.1]"},
      {[&](json& line) { line["cells"][ran]["figures"][figure][3] = -1; },
       "line 2: " + cell + ".figures." + figure + "[3]: expected an integer from 0"},
      {[&](json& line) { line["cells"][ran]["figures"][figure][0] = "fast"; },
       "line 2: " + cell + ".figures." + figure + "[0]: expected a number, got string"},
      {[](json& line) {
         line = json::array({1, 2});
       },
       "line 2: expected an object, got array"},
  };
  for (const auto& [edit, expected] : cases) {
    const auto error = error_of(edited(edit));
    EXPECT_NE(error.find("runs.jsonl " + expected), std::string::npos) << error;
    EXPECT_EQ(error.find("json.exception"), std::string::npos) << error;
  }
  const auto fingerprint = error_of(edited([](json& line) { line["testbed"]["facts"][0][1] = "another CPU"; }));
  EXPECT_NE(fingerprint.find("is not the fingerprint of the facts"), std::string::npos) << fingerprint;

  const auto cut = exported_lines({sample_run(0)}).substr(0, 100);
  EXPECT_NE(error_of("\n" + cut + "\n").find("runs.jsonl line 2: not valid JSON: "), std::string::npos)
      << error_of(cut);
}

}  // namespace
