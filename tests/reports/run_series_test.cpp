// Several reports read together: the verdicts are check's for the same thresholds, the baseline
// stays the first given in either order, what differs between environments is listed, and inputs
// that cannot be read together are refused.
#include "ampbench/reports/run_series.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/report_json.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::make_sample_report;

Report slower_first_cell(double factor) {
  Report report = make_sample_report();
  for (double& t : report.cells[0].step_times_s) t *= factor;
  return report;
}

TEST(RunSeries, VerdictsAreChecksForTheSameThresholds) {
  const Report base = make_sample_report();
  Report current = slower_first_cell(1.5);
  current.cells.pop_back();  // simple_cnn/bf16: only in the baseline
  for (const double threshold : {0.05, 0.6}) {
    CheckOptions options;
    options.max_slowdown = threshold;
    const auto series = build_run_series({{"base.json", base}, {"cur.json", current}}, options);
    const auto check = check_reports(compare_reports(base, current), options);
    ASSERT_EQ(series.cells.size(), 6u);
    for (const auto& expected : check.cells) {
      const auto row = std::find_if(series.cells.begin(), series.cells.end(),
                                    [&](const CellSeries& cell) { return cell.key == expected.key; });
      ASSERT_NE(row, series.cells.end()) << expected.key.label();
      EXPECT_EQ(row->points[1].verdict, expected.verdict) << expected.key.label();
      EXPECT_FALSE(row->points[0].verdict.has_value());
    }
    EXPECT_EQ(series.cells[0].points[1].verdict, threshold < 0.5 ? Verdict::kRegressed : Verdict::kPass);
  }
  EXPECT_EQ(shown_verdict(Verdict::kPass), "unchanged");
  EXPECT_EQ(shown_verdict(Verdict::kRegressed), "regressed");
  EXPECT_EQ(shown_verdict(std::nullopt), "baseline");
}

TEST(RunSeries, MissingAndFailedCellsKeepTheirRows) {
  Report current = make_sample_report();
  current.cells.erase(current.cells.begin() + 1);  // simple_net/fp16 missing
  current.cells[0].status = CellStatus::kFailed;
  current.cells[0].error = "worker crashed";
  const auto series = build_run_series({{"base.json", make_sample_report()}, {"cur.json", current}}, CheckOptions{});
  ASSERT_EQ(series.cells.size(), 6u);
  EXPECT_EQ(series.cells[0].points[1].verdict, Verdict::kRegressed);
  EXPECT_EQ(series.cells[1].points[1].verdict, Verdict::kMissing);
  EXPECT_EQ(series.cell_at(series.cells[1], 1), nullptr);
  const std::string table = render_series_table(series);
  EXPECT_NE(table.find("missing"), std::string::npos) << table;
  EXPECT_NE(table.find("failed in current: worker crashed"), std::string::npos) << table;
}

// Ordered by start time, the trend puts the oldest first; the baseline is still the first given.
TEST(RunSeries, ByTimeTheBaselineStaysTheFirstGiven) {
  Report base = make_sample_report();
  Report older = make_sample_report();
  Report newer = slower_first_cell(1.5);
  base.environment.timestamp_utc = "2025-02-01T00:00:00Z";
  older.environment.timestamp_utc = "2025-01-01T00:00:00Z";
  newer.environment.timestamp_utc = "2025-03-01T00:00:00Z";
  const auto series =
      build_run_series({{"base.json", base}, {"newer.json", newer}, {"older.json", older}}, CheckOptions{}, true);
  ASSERT_EQ(series.runs.size(), 3u);
  EXPECT_EQ(series.runs[0].label, "older.json");
  EXPECT_EQ(series.runs[1].label, "base.json");
  EXPECT_EQ(series.runs[2].label, "newer.json");
  EXPECT_EQ(series.baseline, 1u);
  EXPECT_EQ(series.order, SeriesOrder::kStartTime);
  EXPECT_EQ(series.cells[0].points[2].verdict, Verdict::kRegressed);
  EXPECT_EQ(series.cells[0].points[0].verdict, Verdict::kPass);
  const std::string table = render_series_table(series);
  EXPECT_NE(table.find("newer.json against the baseline base.json"), std::string::npos) << table;
  EXPECT_NE(table.find("Step time over the runs (by start time)"), std::string::npos) << table;
  const auto json = series_to_json(series);
  EXPECT_EQ(json["baseline"], 1);
  EXPECT_EQ(json["current"], 2);
  EXPECT_EQ(json["check"]["passed"], false);
  EXPECT_EQ(json.dump().find("NaN"), std::string::npos);
}

TEST(RunSeries, ListsWhatDiffersBetweenTheEnvironments) {
  Report other = make_sample_report();
  other.environment.torch_version = "2.16.0";
  other.environment.threads = 4;
  other.cells[1].settings.tf32_matmul = true;
  other.config.max_steps = 99;
  const auto series = build_run_series({{"a.json", make_sample_report()}, {"b.json", other}}, CheckOptions{});
  std::vector<std::string> fields;
  for (const auto& difference : series.environment_differences) fields.push_back(difference.field);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"threads", "torch", "simple_net/fp16/cpu/default precision", "setting --steps"}));
  EXPECT_EQ(series.environment_differences[1].values, (std::vector<std::string>{"2.15.0", "2.16.0"}));
  const auto same = build_run_series({{"a.json", make_sample_report()}, {"b.json", make_sample_report()}}, {});
  EXPECT_TRUE(same.environment_differences.empty());
  EXPECT_NE(render_series_table(same).find("The runs' environments match"), std::string::npos);
}

// A cell timed with two untimed steps after each switch (as a GPU's blocks have) against one.
TEST(RunSeries, ListsCellsTimedWithAnotherNumberOfUntimedSteps) {
  Report before = make_sample_report();
  before.cells[1].rounds.emplace();  // one untimed step per block
  Report after = before;
  after.cells[1].rounds->untimed_steps_per_block = 2;
  const auto differences = ampbench::reports::environment_differences({&before, &after});
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].field, "simple_net/fp16/cpu/default untimed steps per block");
  EXPECT_EQ(differences[0].values, (std::vector<std::string>{"1", "2"}));
  EXPECT_TRUE(ampbench::reports::environment_differences({&before, &before}).empty());
}

// The world size is a run setting: listed among the differences, and named run by run for the
// commands that refuse to read such runs together.
TEST(RunSeries, NamesDifferentWorldSizes) {
  Report two_ranks = ampbench::testing::make_data_parallel_report();
  two_ranks.config.grad_compression = GradCompression::kFp16;
  const std::vector<SeriesInput> runs = {{"one.json", make_sample_report()}, {"two.json", two_ranks}};
  EXPECT_EQ(world_size_difference(runs), "one.json 1 rank, two.json 2 ranks");
  EXPECT_EQ(world_size_difference({runs[1], runs[1]}), "");
  const auto series = build_run_series(runs, CheckOptions{});
  std::vector<std::string> fields;
  for (const auto& difference : series.environment_differences) fields.push_back(difference.field);
  EXPECT_NE(std::find(fields.begin(), fields.end(), "setting --ranks"), fields.end());
  EXPECT_NE(std::find(fields.begin(), fields.end(), "setting --grad-compression"), fields.end());
  // Each 2-rank cell has its own row, named with its ranks, with nothing in the one-rank run.
  const auto json = series_to_json(series);
  const auto row = std::find_if(json["cells"].begin(), json["cells"].end(),
                                [](const auto& cell) { return cell["cell"] == "simple_net/fp16/cpu/default/ranks=2"; });
  ASSERT_NE(row, json["cells"].end());
  EXPECT_EQ((*row)["ranks"], 2);
  EXPECT_EQ((*row)["runs"][0]["status"], "missing");
}

TEST(RunSeries, RefusesWhatCannotBeReadTogether) {
  EXPECT_THROW((void)build_run_series({{"a.json", make_sample_report()}}, CheckOptions{}), ReportError);
  const auto benchmark = report_from_google_benchmark(nlohmann::json::parse(
      R"({"context": {}, "benchmarks": [{"name": "BM_A", "run_name": "BM_A", "run_type": "iteration",
          "real_time": 1.0, "time_unit": "ms"}]})"));
  try {
    (void)build_run_series({{"a.json", make_sample_report()}, {"gb.json", benchmark}}, CheckOptions{});
    FAIL() << "mixed kinds were read together";
  } catch (const ReportError& error) {
    EXPECT_STREQ(error.what(),
                 "gb.json: is Google Benchmark JSON but a.json is an ampbench report; compare files of one kind");
  }
  CheckOptions bad;
  bad.alpha = 0.0;
  EXPECT_THROW((void)build_run_series({{"a.json", make_sample_report()}, {"b.json", make_sample_report()}}, bad),
               std::invalid_argument);
}

// A cell's step time is over its rounds when it has them (per worker with several), else its
// steps' median; recomputed, not read from the file's summaries.
TEST(RunSeries, StepTimeEstimateSaysWhatItIsOver) {
  CellResult cell = make_sample_report().cells[0];
  cell.throughput.step_time_s.median = 99.0;  // a stored summary that disagrees with the samples
  EXPECT_EQ(step_time_estimate(cell).over, "steps");
  EXPECT_DOUBLE_EQ(step_time_estimate(cell).value, summarize(cell.step_times_s).median);
  cell.rounds = Rounds{};
  cell.rounds->step_time_s = {1.0, 4.0, 2.0, 8.0};
  cell.rounds->round_replicate = {0, 0, 1, 1};
  EXPECT_EQ(step_time_estimate(cell).over, "worker processes");
  EXPECT_NEAR(step_time_estimate(cell).value, std::sqrt(2.0 * 4.0), 1e-12);  // geometric mean of 2 and 4
  cell.rounds->round_replicate = {0, 0, 0, 0};
  EXPECT_EQ(step_time_estimate(cell).over, "rounds");
}

}  // namespace
