// Programs built on ampbench::main with their own workloads, run as a user runs them: misregistered
// ones refuse to start (exit 2 naming the workload, nothing written); faulty ones are failed cells
// that name the workload and what is wrong, while a correct one beside them completes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "ampbench/reports/report_json.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using ampbench::reports::CellStatus;
using ampbench::testing::run_process;

TEST(UserWorkloads, AMisregisteredWorkloadStopsEveryCommandBeforeItRuns) {
  const ampbench::testing::ScratchDir dir;
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"list"}, {"run", "--out", (dir / "out").string()}}) {
    auto argv = command;
    argv.insert(argv.begin(), MISREGISTERED_BENCH);
    const auto result = run_process(argv);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 2) << result.err;
    EXPECT_EQ(result.err.rfind("misregistered_bench: error: workload 'simplenet': registered twice (and 1 more)\n", 0),
              0u)
        << result.err;
    EXPECT_TRUE(result.out.empty());
  }
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(UserWorkloads, ListShowsThemAfterTheBuiltInOnes) {
  const auto result = run_process({FAULTY_BENCH, "list"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_LT(result.out.find("transformer"), result.out.find("good_linear")) << result.out;
  EXPECT_NE(result.out.find("meta_batches"), std::string::npos) << result.out;
}

TEST(UserWorkloads, FaultyOnesAreFailedCellsNamingThemAndTheRunGoesOn) {
  const ampbench::testing::ScratchDir dir;
  const auto result = run_process({FAULTY_BENCH, "run", "--workloads",
                                   "good_linear,throwing_factory,no_parameters,vector_loss,meta_batches", "--modes",
                                   "fp32,bf16", "--steps", "6", "--replicates", "1", "--time-cap", "1",
                                   "--numerics-steps", "4", "--out", (dir / "out").string()});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;  // failed cells, not bad usage, not a crash
  const auto report = ampbench::reports::read_report(dir / "out" / "report.json");
  const auto cell_error = [&report](const std::string& workload) {
    std::string errors;
    for (const auto& cell : report.cells) {
      if (cell.workload == workload && cell.status != CellStatus::kOk) errors += cell.error + "\n";
    }
    return errors;
  };
  for (const auto& cell : report.cells) {
    if (cell.workload == "good_linear") {
      EXPECT_EQ(cell.status, CellStatus::kOk) << cell.mode << ": " << cell.error;
      EXPECT_EQ(cell.throughput.flops_source, ampbench::reports::FlopSource::kCounted);
      EXPECT_DOUBLE_EQ(cell.throughput.flops_per_step, 3.0 * 2 * 8 * 4 * 1);  // the Linear 4->1 on 8 samples
    }
  }
  EXPECT_NE(cell_error("throwing_factory").find("workload 'throwing_factory': its factory threw: no such dataset"),
            std::string::npos)
      << cell_error("throwing_factory");
  EXPECT_NE(cell_error("no_parameters").find("workload 'no_parameters': the model has no parameters to train"),
            std::string::npos)
      << cell_error("no_parameters");
  EXPECT_NE(
      cell_error("vector_loss").find("workload 'vector_loss': loss() returned a tensor of shape [8, 1], not a scalar"),
      std::string::npos)
      << cell_error("vector_loss");
  EXPECT_NE(cell_error("meta_batches").find("workload 'meta_batches': make_batch(0) returned a tensor on meta"),
            std::string::npos)
      << cell_error("meta_batches");
}

}  // namespace
