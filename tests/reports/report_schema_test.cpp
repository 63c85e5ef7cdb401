// The JSON Schema in reports/schema/ describes exactly what to_json writes: a written report
// validates, and broken ones do not (checked with Python's jsonschema, an independent validator).
#include <gtest/gtest.h>

#include <fstream>

#include "ampbench/reports/report_json.h"
#include "sample_report.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::make_sample_report;
using ampbench::testing::run_process;
using ampbench::testing::ScratchDir;

ampbench::testing::ProcessResult validate(const std::filesystem::path& file) {
  return run_process({AMPBENCH_PYTHON, AMPBENCH_SCHEMA_VALIDATOR, AMPBENCH_REPORT_SCHEMA, file.string()});
}

void write_json(const std::filesystem::path& path, const nlohmann::json& json) { std::ofstream(path) << json.dump(1); }

// A broken report: the validator must refuse it and name `expected` (the field's path, say).
struct Case {
  const char* name;
  nlohmann::json json;
  const char* expected;
};

void expect_rejected(const std::vector<Case>& cases) {
  ScratchDir dir;
  for (const auto& broken : cases) {
    write_json(dir / broken.name, broken.json);
    const auto result = validate(dir / broken.name);
    EXPECT_EQ(result.exit_code, 1) << broken.name << ": " << result.out << result.err;
    EXPECT_NE(result.out.find(broken.expected), std::string::npos) << broken.name << ": " << result.out;
  }
}

TEST(ReportSchema, AWrittenReportIsValid) {
  ScratchDir dir;
  write_report_atomically(make_sample_report(), dir / "report.json");
  const auto result = validate(dir / "report.json");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
}

TEST(ReportSchema, AGemmSpeedAgainstFloat32IsValidAndABrokenOneIsNamed) {
  ScratchDir dir;
  Report report = make_sample_report();
  report.environment.gemm_peaks[1].versus_float32 = GemmSpeedRatio{{0.97, 0.91, 1.04}, 8, 512};
  write_report_atomically(report, dir / "report.json");
  const auto result = validate(dir / "report.json");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  nlohmann::json broken = report;
  broken["environment"]["gemm_peaks"][1]["versus_float32"]["rounds"] = 0;
  nlohmann::json no_size = report;
  no_size["environment"]["gemm_peaks"][1]["versus_float32"]["matrix_size"] = 0;
  expect_rejected({{"gemm-rounds.json", broken, "environment/gemm_peaks/1/versus_float32/rounds"},
                   {"gemm-size.json", no_size, "environment/gemm_peaks/1/versus_float32/matrix_size"}});
}

TEST(ReportSchema, AGpuCellIsValid) {
  ScratchDir dir;
  Report report = make_sample_report();
  report.cells.push_back(ampbench::testing::sample_gpu_cell());
  report.environment.devices.push_back({"cuda:0", "NVIDIA H100 80GB HBM3", "9.0", 80LL << 30, 132, "Default"});
  write_report_atomically(report, dir / "report.json");
  const auto result = validate(dir / "report.json");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  // And what was written reads back the same.
  const auto back = read_report(dir / "report.json").cells.back();
  EXPECT_EQ(back.tensor_cores.metrics.size(), 6u);
  EXPECT_EQ(back.tensor_cores.metrics.back().method, "cupti-activity-kernel-names");
  EXPECT_EQ(back.host_step_times_s, report.cells.back().host_step_times_s);
  EXPECT_EQ(back.memory.cuda_total_bytes, report.cells.back().memory.cuda_total_bytes);
}

TEST(ReportSchema, AnEmptyReportIsValid) {
  ScratchDir dir;
  write_report_atomically(Report{}, dir / "report.json");
  const auto result = validate(dir / "report.json");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
}

TEST(ReportSchema, AReportWithoutGemmPeaksIsValid) {
  ScratchDir dir;
  nlohmann::json old = make_sample_report();
  old["environment"].erase("gemm_peaks");
  for (auto& cell : old["cells"]) cell["throughput"].erase("fraction_of_peak");
  write_json(dir / "old.json", old);
  const auto result = validate(dir / "old.json");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
}

// A pass that failed (its error, no floor, no curves), a run without the pass (null numerics,
// null numerics_steps), and a divergence from before the pass, which readers take as absent.
TEST(ReportSchema, NumericsVariantsAreValid) {
  ScratchDir dir;
  nlohmann::json json = make_sample_report();
  json["cells"][0]["numerics"]["error"] = "numerics pass: the worker was killed by signal 9";
  json["cells"][0]["numerics"]["floor"] = nullptr;
  json["cells"][0]["numerics"]["run"]["eval_loss"] = nlohmann::json::array();
  json["cells"][3]["numerics"] = nullptr;
  json["config"]["numerics_steps"] = nullptr;
  json["cells"][5]["divergence"] = {{"reference_mode", "fp32"},
                                    {"steps_compared", 40},
                                    {"p_value", 0.3},
                                    {"bound", 0.05},
                                    {"verdict", "within bound"}};
  write_json(dir / "variants.json", json);
  const auto result = validate(dir / "variants.json");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
}

TEST(ReportSchema, ADataParallelReportIsValid) {
  ScratchDir dir;
  const auto report = ampbench::testing::make_data_parallel_report();
  ASSERT_TRUE(report.cells[3].data_parallel.has_value());
  write_report_atomically(report, dir / "report.json");
  const auto result = validate(dir / "report.json");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
}

// Version 1 (before ranks) validates too, as the reader takes it.
TEST(ReportSchema, AVersion1ReportIsValid) {
  const auto result = validate(std::filesystem::path(AMPBENCH_FIXTURE_DIR) / "report-v1.json");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
}

TEST(ReportSchema, BrokenRanksAreRejectedWithTheField) {
  const nlohmann::json good = ampbench::testing::make_data_parallel_report();
  std::vector<Case> cases;
  cases.push_back({"zero.json", good, "cells/3/ranks: 0 is less than the minimum of 1"});
  cases.back().json["cells"][3]["ranks"] = 0;
  cases.push_back({"missing.json", good, "cells/1: 'ranks' is a required property"});
  cases.back().json["cells"][1].erase("ranks");
  cases.push_back({"one-rank.json", good, "cells/0/data_parallel"});
  cases.back().json["cells"][0]["data_parallel"] = good["cells"][3]["data_parallel"];
  cases.push_back({"field.json", good, "cells/4/data_parallel"});
  cases.back().json["cells"][4]["data_parallel"].erase("allreduce_time_s");
  cases.push_back({"v1-ranks.json", good, "cells/0: False schema does not allow 1"});
  cases.back().json["schema"] = "ampbench.report/1";
  expect_rejected(cases);
}

TEST(ReportSchema, BrokenReportsAreRejectedWithTheField) {
  const nlohmann::json good = make_sample_report();
  std::vector<Case> cases;
  cases.push_back({"version.json", good, "schema"});
  cases.back().json["schema"] = "ampbench.report/3";
  cases.push_back({"type.json", good, "cells/2/throughput/step_time_s/median"});
  cases.back().json["cells"][2]["throughput"]["step_time_s"]["median"] = "fast";
  cases.push_back({"null-step.json", good, "cells/0/step_times_s/3"});
  cases.back().json["cells"][0]["step_times_s"][3] = nullptr;
  cases.push_back({"missing.json", good, "'peak_rss_bytes' is a required property"});
  cases.back().json["cells"][3]["memory"].erase("peak_rss_bytes");
  cases.push_back({"peak-status.json", good, "environment/gemm_peaks/0/status"});
  cases.back().json["environment"]["gemm_peaks"][0]["status"] = "guessed";
  cases.push_back({"verdict.json", good, "cells/1/divergence"});
  cases.back().json["cells"][1]["divergence"]["verdict"] = "within bound";
  cases.push_back({"numerics-field.json", good, "cells/0/numerics"});
  cases.back().json["cells"][0]["numerics"]["frobnicate"] = 1;
  cases.push_back({"eval-steps.json", good, "cells/2/numerics"});
  cases.back().json["cells"][2]["numerics"]["eval_steps"][1] = -2;
  cases.push_back({"numerics-steps.json", good, "config/numerics_steps"});
  cases.back().json["config"]["numerics_steps"] = "many";
  cases.push_back({"unknown.json", good, "Additional properties are not allowed"});
  cases.back().json["cells"][1]["frobnicate"] = true;
  expect_rejected(cases);
}

}  // namespace
