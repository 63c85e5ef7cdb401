// The report's JSON: strict out (no bare NaN), strict in (errors that name the field's path), and
// the file rules (size limit, truncated or non-JSON files, atomic writes).
#include "ampbench/reports/report_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>

#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/roofline.h"
#include "sample_report.h"
#include "support/scratch_dir.h"

namespace {

using namespace ampbench::reports;
using ampbench::testing::make_sample_report;
using ampbench::testing::ScratchDir;

nlohmann::json sample_json() { return nlohmann::json(make_sample_report()); }

std::string parse_error(const nlohmann::json& json) {
  try {
    (void)parse_report(json);
  } catch (const ReportError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string read_error(const std::filesystem::path& path, std::uintmax_t limit = kMaxReportBytes) {
  try {
    (void)read_report(path, limit);
  } catch (const ReportError& error) {
    return error.what();
  }
  return "(no error)";
}

void write_text(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

TEST(ReportJson, RoundTripPreservesEveryField) {
  const auto first = sample_json();
  const Report parsed = parse_report(first);
  EXPECT_EQ(nlohmann::json(parsed), first);
  EXPECT_EQ(parsed.cells.size(), 6u);
  EXPECT_EQ(parsed.cells[4].status, CellStatus::kFailed);
  ASSERT_TRUE(parsed.cells[1].scaler.has_value());
  EXPECT_EQ(parsed.cells[1].scaler->skipped_steps, (std::vector<std::int64_t>{3, 4}));
}

TEST(ReportJson, NumericsAndDivergenceRoundTrip) {
  const Report report = make_sample_report();
  const auto json = nlohmann::json(report);
  // The FP32 cell carries its floor run; an AMP cell has none (null) and its divergence.
  EXPECT_EQ(json["cells"][0]["numerics"]["floor_perturbation"], "data order reversed");
  EXPECT_EQ(json["cells"][0]["numerics"]["eval_steps"].size(), 9u);
  EXPECT_TRUE(json["cells"][1]["numerics"]["floor"].is_null());
  EXPECT_EQ(json["cells"][2]["divergence"]["verdict"], "diverged");
  EXPECT_EQ(json["config"]["numerics_steps"], 16);
  const Report parsed = parse_report(json);
  ASSERT_TRUE(parsed.cells[0].numerics && parsed.cells[0].numerics->floor);
  EXPECT_EQ(parsed.cells[0].numerics->floor->eval_loss, report.cells[0].numerics->floor->eval_loss);
  EXPECT_EQ(parsed.cells[0].numerics->run.train_loss, report.cells[0].numerics->run.train_loss);
  EXPECT_EQ(parsed.cells[5].numerics->run.wall_s, 5.6);
  ASSERT_TRUE(parsed.cells[5].divergence.has_value());
  EXPECT_EQ(parsed.cells[5].divergence->verdict, DivergenceVerdict::kAboveFloor);
  EXPECT_EQ(parsed.cells[5].divergence->final_evaluations, 2);
  EXPECT_EQ(parsed.cells[5].divergence->ratio_to_floor, report.cells[5].divergence->ratio_to_floor);
  EXPECT_EQ(parsed.config.numerics_steps, std::optional<std::int64_t>(16));
  // A non-finite eval loss is null in JSON and NaN again when read.
  Report with_nan = report;
  with_nan.cells[1].numerics->run.eval_loss[4] = std::numeric_limits<double>::quiet_NaN();
  relate_to_fp32(with_nan);  // its divergence follows (a stale one is refused on read)
  const auto nan_json = nlohmann::json(with_nan);
  EXPECT_TRUE(nan_json["cells"][1]["numerics"]["run"]["eval_loss"][4].is_null());
  EXPECT_TRUE(std::isnan(parse_report(nan_json).cells[1].numerics->run.eval_loss[4]));
  // A report without the pass (turned off, or older): no numerics, no numerics_steps.
  auto old = json;
  for (auto& cell : old["cells"]) {
    cell.erase("numerics");
    cell.erase("divergence");  // derived from the passes: none without them
  }
  old["config"].erase("numerics_steps");
  const Report without = parse_report(old);
  EXPECT_FALSE(without.cells[0].numerics.has_value());
  EXPECT_FALSE(without.config.numerics_steps.has_value());
}

TEST(ReportJson, GemmPeaksAndFractionsRoundTrip) {
  Report report = make_sample_report();
  report.environment.gemm_peaks.push_back(
      {"cpu", "tfloat32", MeasurementStatus::kUnavailable, "TF32 is a CUDA matmul mode", 0.0, 0, ""});
  const auto json = nlohmann::json(report);
  EXPECT_EQ(json["environment"]["gemm_peaks"][0]["flops_per_s"], 2.0e11);
  EXPECT_EQ(json["environment"]["gemm_peaks"][0]["matrix_size"], 1024);
  EXPECT_EQ(json["cells"][0]["throughput"]["fraction_of_peak"], 0.6);
  EXPECT_TRUE(json["cells"][4]["throughput"]["fraction_of_peak"].is_null());  // the failed cell
  const Report parsed = parse_report(json);
  ASSERT_EQ(parsed.environment.gemm_peaks.size(), 4u);
  EXPECT_EQ(parsed.environment.gemm_peaks[0].method, "at::mm 1024x1024, best of 9 calls, 2 threads");
  EXPECT_EQ(parsed.environment.gemm_peaks[3].status, MeasurementStatus::kUnavailable);
  EXPECT_EQ(parsed.environment.gemm_peaks[3].reason, "TF32 is a CUDA matmul mode");
  EXPECT_EQ(nlohmann::json(parsed), json);
}

// A CPU report has no "mfu" (reports from before it read the same); a GPU cell on a known chip has
// it, and a stored value that its rate and the datasheet do not give is refused.
TEST(ReportJson, MfuIsWrittenWhereAChipHasOneAndMustFollowFromIt) {
  Report report = make_sample_report();
  EXPECT_FALSE(nlohmann::json(report)["cells"][0]["throughput"].contains("mfu"));
  report.environment.devices.push_back({"cuda:0", "NVIDIA H200", "9.0", 150LL << 30, 132, "Default"});
  report.cells.push_back(ampbench::testing::sample_gpu_cell());
  fill_fractions_of_peak(report);
  auto json = nlohmann::json(report);
  const auto& gpu = report.cells.back();
  ASSERT_TRUE(json["cells"][6]["throughput"].contains("mfu"));
  EXPECT_DOUBLE_EQ(json["cells"][6]["throughput"]["mfu"].get<double>(), gpu.throughput.achieved_flops_per_s / 989.4e12);
  EXPECT_EQ(nlohmann::json(parse_report(json)), json);
  EXPECT_EQ(ampbench::testing::report_read_error(json), "(no error)");
  json["cells"][6]["throughput"]["mfu"] = 0.99;
  EXPECT_NE(ampbench::testing::report_read_error(json).find("cells[6].throughput.mfu"), std::string::npos)
      << ampbench::testing::report_read_error(json);
}

TEST(ReportJson, AGemmSpeedAgainstFloat32RoundTripsAndABrokenOneIsNamed) {
  Report report = make_sample_report();
  report.environment.gemm_peaks[1].versus_float32 = GemmSpeedRatio{{0.97, 0.91, 1.04}, 8, 512};
  auto json = nlohmann::json(report);
  EXPECT_EQ(
      json["environment"]["gemm_peaks"][1]["versus_float32"],
      (nlohmann::json{{"value", 0.97}, {"ci_low", 0.91}, {"ci_high", 1.04}, {"rounds", 8}, {"matrix_size", 512}}));
  EXPECT_FALSE(json["environment"]["gemm_peaks"][0].contains("versus_float32"));  // float32 itself
  const Report parsed = parse_report(json);
  ASSERT_TRUE(parsed.environment.gemm_peaks[1].versus_float32.has_value());
  EXPECT_EQ(parsed.environment.gemm_peaks[1].versus_float32->rounds, 8);
  EXPECT_EQ(parsed.environment.gemm_peaks[1].versus_float32->matrix_size, 512);
  EXPECT_EQ(nlohmann::json(parsed), json);
  // No size shared (or a report from before the size was kept): no matrix_size, read as 0.
  auto unshared = json;
  unshared["environment"]["gemm_peaks"][1]["versus_float32"].erase("matrix_size");
  EXPECT_EQ(parse_report(unshared).environment.gemm_peaks[1].versus_float32->matrix_size, 0);
  EXPECT_EQ(nlohmann::json(parse_report(unshared)), unshared);
  json["environment"]["gemm_peaks"][1]["versus_float32"]["matrix_size"] = 0;
  auto error = parse_error(json);
  EXPECT_NE(error.find("environment.gemm_peaks[1].versus_float32.matrix_size"), std::string::npos) << error;
  json["environment"]["gemm_peaks"][1]["versus_float32"]["matrix_size"] = 512;
  json["environment"]["gemm_peaks"][1]["versus_float32"]["rounds"] = 0;
  error = parse_error(json);
  EXPECT_NE(error.find("environment.gemm_peaks[1].versus_float32.rounds"), std::string::npos) << error;
}

TEST(ReportJson, AReportWithoutGemmPeaksStillReads) {
  auto json = sample_json();
  json["environment"].erase("gemm_peaks");
  for (auto& cell : json["cells"]) cell["throughput"].erase("fraction_of_peak");
  const Report parsed = parse_report(json);
  EXPECT_TRUE(parsed.environment.gemm_peaks.empty());
  EXPECT_FALSE(parsed.cells[0].throughput.fraction_of_peak.has_value());
}

// GPUs carry their compute mode; the CPU and reports written before the field have none.
TEST(ReportJson, AGpuComputeModeRoundTripsAndIsOptional) {
  Report report = make_sample_report();
  report.environment.devices.push_back(
      {"cuda:0", "NVIDIA H100 80GB HBM3", "9.0", 80LL << 30, 132, "Exclusive Process"});
  const auto json = nlohmann::json(report);
  EXPECT_FALSE(json["environment"]["devices"][0].contains("compute_mode"));
  EXPECT_EQ(json["environment"]["devices"][1]["compute_mode"], "Exclusive Process");
  const Report parsed = parse_report(json);
  EXPECT_EQ(parsed.environment.devices[0].compute_mode, "");
  EXPECT_EQ(parsed.environment.devices[1].compute_mode, "Exclusive Process");
  EXPECT_EQ(nlohmann::json(parsed), json);

  auto wrong = json;
  wrong["environment"]["devices"][1]["compute_mode"] = 3;
  EXPECT_EQ(parse_error(wrong), "environment.devices[1].compute_mode: expected a string, got number");
}

// Both statuses of what the machine may not measure are one vocabulary, refused when unknown.
TEST(ReportJson, TensorCoreStatusIsReadStrictly) {
  auto json = sample_json();
  EXPECT_EQ(json["cells"][0]["tensor_cores"]["status"], "unavailable");
  json["cells"][0]["tensor_cores"]["status"] = "partly";
  EXPECT_EQ(parse_error(json),
            "cells[0].tensor_cores.status: expected \"measured\" or \"unavailable\", got \"partly\"");
}

TEST(ReportJson, AGemmPeakIsReadStrictly) {
  auto json = sample_json();
  json["environment"]["gemm_peaks"][1]["status"] = "guessed";
  EXPECT_EQ(parse_error(json),
            "environment.gemm_peaks[1].status: expected \"measured\" or \"unavailable\", got \"guessed\"");
  json = sample_json();
  json["environment"]["gemm_peaks"][2].erase("matrix_size");
  EXPECT_EQ(parse_error(json), "environment.gemm_peaks[2].matrix_size: missing field");
}

TEST(ReportJson, NonFiniteDoublesAreWrittenAsNullAndReadBackAsNaN) {
  const Report report = make_sample_report();
  const std::string text = report_to_text(report);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("Infinity"), std::string::npos);
  const auto json = nlohmann::json::parse(text);
  EXPECT_TRUE(json["cells"][1]["losses"][4].is_null());
  EXPECT_TRUE(json["cells"][1]["scaler"]["scale"][4].is_null());
  const Report parsed = parse_report(json);
  EXPECT_TRUE(std::isnan(parsed.cells[1].losses[4]));
  EXPECT_TRUE(std::isnan(parsed.cells[1].scaler->scale[4]));
}

TEST(ReportJson, EmptyOptionalsAreNullAndMayAlsoBeAbsent) {
  auto json = sample_json();
  EXPECT_TRUE(json["cells"][0]["divergence"].is_null());
  json["cells"][0].erase("divergence");
  json["config"].erase("batch");
  const Report parsed = parse_report(json);
  EXPECT_FALSE(parsed.cells[0].divergence.has_value());
  EXPECT_FALSE(parsed.config.batch.has_value());
}

TEST(ReportJson, SchemaVersionMismatchIsNamedFirst) {
  auto json = sample_json();
  EXPECT_EQ(json["schema"], "ampbench.report/2");
  json["schema"] = "ampbench.report/3";
  json["cells"] = 3;  // would fail too, but the version is the reason to give
  EXPECT_EQ(parse_error(json),
            "schema: expected \"ampbench.report/2\" or \"ampbench.report/1\", got \"ampbench.report/3\"");
  json.erase("schema");
  EXPECT_EQ(parse_error(json), "schema: missing field");
}

// A file as version 1 wrote it (the sample report before ranks): one-rank cells, and written
// again a version 2 report that differs from it only by what version 2 added.
TEST(ReportJson, AVersion1ReportReadsAsOneRankAndIsWrittenAsVersion2) {
  const auto path = std::filesystem::path(AMPBENCH_FIXTURE_DIR) / "report-v1.json";
  const Report report = read_report(path);
  EXPECT_EQ(report.schema, kReportSchema);
  ASSERT_EQ(report.cells.size(), 6u);
  for (const auto& cell : report.cells) {
    EXPECT_EQ(cell.ranks, 1) << cell.workload << "/" << cell.mode;
    EXPECT_FALSE(cell.data_parallel.has_value());
  }
  EXPECT_EQ(report.config.ranks, 1);
  EXPECT_EQ(report.config.grad_compression, GradCompression::kNone);
  EXPECT_EQ(report.cells[4].status, CellStatus::kFailed);
  EXPECT_EQ(report.cells[2].divergence->verdict, DivergenceVerdict::kDiverged);

  auto written = nlohmann::json::parse(report_to_text(report));
  EXPECT_EQ(written["schema"], "ampbench.report/2");
  EXPECT_EQ(written["cells"][0]["ranks"], 1);
  EXPECT_TRUE(written["cells"][0]["data_parallel"].is_null());
  EXPECT_EQ(nlohmann::json(parse_report(written)), written);
  written["schema"] = "ampbench.report/1";
  // Version 1 ran under glibc's defaults: read so, and written so (with the fields v1 lacks).
  EXPECT_EQ(written["config"]["allocator"], "glibc");
  EXPECT_EQ(written["config"]["graphs"], "off");
  for (const char* key :
       {"ranks", "grad_compression", "rank_timeout_s", "allocator", "graphs", "throttle_threshold_percent"})
    written["config"].erase(key);
  for (auto& cell : written["cells"]) {
    cell.erase("ranks");
    cell.erase("data_parallel");
    cell.erase("page_faults");
    cell["throughput"].erase("stop_reasons");  // counted from the sentence, which is kept as it was
  }
  written.erase("reruns");
  EXPECT_EQ(written, nlohmann::json::parse(read_text_file(path))) << "a field of version 1 was lost or changed";
}

// What version 1 did not have is refused in a version 1 file, as any unknown field.
TEST(ReportJson, AVersion1ReportHasNoRanks) {
  auto json = sample_json();
  json["schema"] = "ampbench.report/1";
  EXPECT_EQ(parse_error(json), "cells[0].data_parallel: unknown field");
  for (auto& cell : json["cells"]) cell.erase("data_parallel");
  EXPECT_EQ(parse_error(json), "cells[0].ranks: unknown field");
  for (auto& cell : json["cells"]) cell.erase("ranks");
  EXPECT_EQ(parse_error(json), "(no error)");
}

TEST(ReportJson, DataParallelRoundTrips) {
  const Report report = ampbench::testing::make_data_parallel_report();
  const auto json = nlohmann::json(report);
  EXPECT_EQ(json["config"]["ranks"], 2);
  EXPECT_EQ(json["cells"][3]["ranks"], 2);
  EXPECT_EQ(json["cells"][3]["data_parallel"]["backend"], "gloo");
  EXPECT_EQ(json["cells"][3]["data_parallel"]["allreduce_times_s"].size(), 30u);
  EXPECT_TRUE(json["cells"][5]["data_parallel"]["scaling_efficiency"].is_null());  // its 1-rank twin failed
  const Report parsed = parse_report(json);
  EXPECT_EQ(nlohmann::json(parsed), json);
  const auto& cell = parsed.cells[4];
  EXPECT_EQ(cell.ranks, 2);
  ASSERT_TRUE(cell.data_parallel.has_value());
  const auto& expected = *report.cells[4].data_parallel;
  EXPECT_EQ(cell.data_parallel->gradient_sync, "c10d::Reducer, 2 buckets (cap 25 MiB)");
  EXPECT_EQ(cell.data_parallel->buckets, 2);
  EXPECT_EQ(cell.data_parallel->allreduce_times_s, expected.allreduce_times_s);
  EXPECT_EQ(cell.data_parallel->allreduce_time_s.median, expected.allreduce_time_s.median);
  EXPECT_EQ(cell.data_parallel->allreduce_time_s.ci_high, expected.allreduce_time_s.ci_high);
  EXPECT_EQ(cell.data_parallel->allreduce_bytes_per_step, 84'484.0);
  EXPECT_EQ(cell.data_parallel->rank_median_step_time_s, expected.rank_median_step_time_s);
  ASSERT_TRUE(cell.data_parallel->scaling_efficiency.has_value());
  EXPECT_EQ(cell.data_parallel->scaling_efficiency->ci_low, expected.scaling_efficiency->ci_low);
  EXPECT_TRUE(cell.data_parallel->inf_checks_agreed);
  EXPECT_FALSE(parsed.cells[5].data_parallel->scaling_efficiency.has_value());
  EXPECT_FALSE(parsed.cells[0].data_parallel.has_value());
  // A failed check of the inf flags is read as written, not defaulted.
  auto disagreed = json;
  disagreed["cells"][3]["data_parallel"]["inf_checks_agreed"] = false;
  EXPECT_FALSE(parse_report(disagreed).cells[3].data_parallel->inf_checks_agreed);
}

TEST(ReportJson, RanksAndDataParallelAreReadStrictly) {
  const auto json = nlohmann::json(ampbench::testing::make_data_parallel_report());
  const auto error_of = [&json](const std::function<void(nlohmann::json&)>& change) {
    auto changed = json;
    change(changed);
    return parse_error(changed);
  };
  EXPECT_EQ(error_of([](auto& j) { j["cells"][3]["ranks"] = 0; }),
            "cells[3].ranks: expected an integer from 1 to 1024, got 0");
  EXPECT_EQ(error_of([](auto& j) { j["cells"][0].erase("ranks"); }), "cells[0].ranks: missing field");
  EXPECT_EQ(error_of([](auto& j) { j["cells"][0]["ranks"] = "1"; }), "cells[0].ranks: expected an integer, got string");
  EXPECT_EQ(error_of([](auto& j) { j["cells"][0]["data_parallel"] = j["cells"][3]["data_parallel"]; }),
            "cells[0].data_parallel: present on a cell of 1 rank (only cells of 2 or more ranks have it)");
  EXPECT_EQ(error_of([](auto& j) { j["cells"][3]["data_parallel"]["frobnicate"] = 1; }),
            "cells[3].data_parallel.frobnicate: unknown field");
  EXPECT_EQ(error_of([](auto& j) { j["cells"][3]["data_parallel"].erase("buckets"); }),
            "cells[3].data_parallel.buckets: missing field");
  EXPECT_EQ(error_of([](auto& j) { j["cells"][3]["data_parallel"]["grad_compression"] = "fp8"; }),
            "cells[3].data_parallel.grad_compression: expected none, fp16 or bf16, got \"fp8\"");
  EXPECT_EQ(error_of([](auto& j) { j["cells"][3]["data_parallel"]["allreduce_times_s"][2] = -1e-4; }),
            "cells[3].data_parallel.allreduce_times_s[2]: expected a time in seconds of 0 or more, got -0.0001");
  EXPECT_EQ(error_of([](auto& j) { j["cells"][3]["data_parallel"]["allreduce_time_s"]["count"] = 29; }),
            "cells[3].data_parallel.allreduce_time_s.count: 29 does not match the 30 values of allreduce_times_s");
  EXPECT_EQ(error_of([](auto& j) {
              auto& parallel = j["cells"][3]["data_parallel"];
              parallel["allreduce_times_s"].erase(0);
              parallel["allreduce_time_s"]["count"] = 29;
            }),
            "cells[3].data_parallel.allreduce_times_s: 29 values for 30 timed steps");
  EXPECT_EQ(error_of([](auto& j) { j["cells"][4]["data_parallel"]["rank_median_step_time_s"].erase(1); }),
            "cells[4].data_parallel.rank_median_step_time_s: 1 values for 2 ranks");
  // A 2-rank cell that failed may lack data_parallel, or hold what it measured before it failed.
  EXPECT_EQ(error_of([](auto& j) {
              j["cells"][4]["status"] = "failed";
              j["cells"][4]["data_parallel"]["rank_median_step_time_s"].erase(1);
              j["cells"][5]["data_parallel"] = nullptr;
            }),
            "(no error)");
}

TEST(ReportJson, WrongTypeNamesTheFieldPath) {
  auto json = sample_json();
  json["cells"][2]["throughput"]["step_time_s"]["median"] = "fast";
  EXPECT_EQ(parse_error(json), "cells[2].throughput.step_time_s.median: expected a number or null, got string");
  json = sample_json();
  json["cells"][0]["warmup_steps"] = 2.5;
  EXPECT_EQ(parse_error(json), "cells[0].warmup_steps: expected an integer, got number");
  json = sample_json();
  json["environment"]["devices"][0]["name"] = 1;
  EXPECT_EQ(parse_error(json), "environment.devices[0].name: expected a string, got number");
  json = sample_json();
  json["cells"] = nlohmann::json::object();
  EXPECT_EQ(parse_error(json), "cells: expected an array, got object");
}

TEST(ReportJson, MissingAndUnknownFieldsAreNamed) {
  auto json = sample_json();
  json["cells"][3]["memory"].erase("peak_rss_bytes");
  EXPECT_EQ(parse_error(json), "cells[3].memory.peak_rss_bytes: missing field");
  json = sample_json();
  json["cells"][1]["divergence"]["extra"] = 1;
  EXPECT_EQ(parse_error(json), "cells[1].divergence.extra: unknown field");
  json = sample_json();
  json["cells"][0]["status"] = "maybe";
  EXPECT_EQ(parse_error(json), "cells[0].status: expected \"ok\" or \"failed\", got \"maybe\"");
}

// In code a cell's status is an enum; in the file it is a name, matched exactly, and in a failed
// assertion it prints as that name.
TEST(ReportJson, CellStatusIsWrittenAndReadByName) {
  auto json = sample_json();
  EXPECT_EQ(json["cells"][0]["status"], "ok");
  EXPECT_EQ(json["cells"][4]["status"], "failed");
  json["cells"][0]["status"] = "OK";
  EXPECT_EQ(parse_error(json), "cells[0].status: expected \"ok\" or \"failed\", got \"OK\"");
  EXPECT_EQ(::testing::PrintToString(CellStatus::kFailed), "failed");
}

TEST(ReportJson, StepTimesMustBeFiniteNumbers) {
  auto json = sample_json();
  json["cells"][0]["step_times_s"][3] = nullptr;
  EXPECT_EQ(parse_error(json), "cells[0].step_times_s[3]: expected a number, got null");
  json = sample_json();
  json["cells"][0]["throughput"]["samples_per_step"] = 18446744073709551615ULL;
  EXPECT_EQ(parse_error(json), "cells[0].throughput.samples_per_step: integer 18446744073709551615 is out of range");
}

TEST(ReportFile, WritesAtomicallyAndReadsBack) {
  ScratchDir dir;
  const auto path = dir / "report.json";
  write_text(path, "old");
  write_report_atomically(make_sample_report(), path);
  EXPECT_EQ(nlohmann::json(read_report(path)), sample_json());
  // Nothing but the report is left in the folder: the temporary file was renamed, not copied.
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);
}

TEST(ReportFile, UnwritableTargetIsNamedAndNothingIsLeft) {
  ScratchDir dir;
  const auto path = dir / "missing-folder" / "report.json";
  try {
    write_report_atomically(make_sample_report(), path);
    FAIL() << "no error";
  } catch (const ReportError& error) {
    EXPECT_EQ(std::string(error.what()).rfind(path.string() + ": cannot write", 0), 0u) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::create_directory(dir / "a-folder");
  EXPECT_THROW(write_report_atomically(make_sample_report(), dir / "a-folder"), ReportError);
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);  // the folder itself, and no temporary file
}

TEST(ReportFile, BadFilesAreNamedWithTheReason) {
  ScratchDir dir;
  EXPECT_EQ(read_error(dir / "none.json"), (dir / "none.json").string() + ": no such file");
  EXPECT_EQ(read_error(dir.path()), dir.path().string() + ": not a regular file");

  const std::string full = report_to_text(make_sample_report());
  // Cut between two tokens (half way could fall inside a string and read as another error).
  write_text(dir / "truncated.json", full.substr(0, full.find('[', full.find("\"cells\"")) + 1));
  EXPECT_EQ(read_error(dir / "truncated.json").rfind((dir / "truncated.json").string() + ": not valid JSON: ", 0), 0u);
  EXPECT_NE(read_error(dir / "truncated.json").find("unexpected end of input"), std::string::npos)
      << read_error(dir / "truncated.json");

  auto json = sample_json();
  std::string text = json.dump();
  text.replace(text.find("\"ratio_to_floor\":"), 17, "\"ratio_to_floor\":NaN,\"x\":");
  write_text(dir / "nan.json", text);
  EXPECT_NE(read_error(dir / "nan.json").find(": not valid JSON: "), std::string::npos) << read_error(dir / "nan.json");

  json["cells"][0]["mode"] = 32;
  write_text(dir / "typed.json", json.dump());
  EXPECT_EQ(read_error(dir / "typed.json"),
            (dir / "typed.json").string() + ": cells[0].mode: expected a string, got number");
}

TEST(ReportFile, HugeFilesAreRefusedBeforeReading) {
  ScratchDir dir;
  const auto path = dir / "huge.json";
  write_text(path, "{");
  std::filesystem::resize_file(path, kMaxReportBytes + 1);  // sparse: costs no disk
  EXPECT_EQ(read_error(path), path.string() + ": too large for a report (268435457 bytes; the limit is 268435456)");
  write_text(path, std::string(2048, ' '));
  EXPECT_EQ(read_error(path, 1024), path.string() + ": too large for a report (2048 bytes; the limit is 1024)");
}

}  // namespace
