// The seeded numerics defects (support/numerics_defect_workloads.h) through the real binary: each is
// caught by the numerics pass and the layer it sits in is named, in report.json, in `explain` and in
// the Markdown's per-layer tables (issue #34).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ampbench/reports/report_json.h"
#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using ampbench::reports::DivergenceVerdict;
using ampbench::testing::run_process;

class NumericsDefects : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ampbench::testing::ScratchDir();
    run_ = new ampbench::testing::ProcessResult(
        // --device cpu: the seeded workloads make their batches on the CPU (on a GPU machine `auto`
        // picked the GPU and every cell failed on the batch's device, as it should).
        run_process({NUMERICS_DEFECTS_BENCH, "run", "--device", "cpu", "--workloads", "loud-layer,tiny-loss", "--modes",
                     "fp32,fp16,bf16,fp16-noscale", "--steps", "6", "--replicates", "1", "--time-cap", "1",
                     "--no-breakdown", "--numerics-steps", "48", "--out", (*dir_ / "out").string()}));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
  }
  static fs::path out() { return *dir_ / "out"; }
  static const ampbench::reports::CellResult& cell(const ampbench::reports::Report& report, const std::string& workload,
                                                   const std::string& mode) {
    const auto found = std::find_if(report.cells.begin(), report.cells.end(),
                                    [&](const auto& c) { return c.workload == workload && c.mode == mode; });
    if (found == report.cells.end()) throw std::runtime_error("no cell " + workload + "/" + mode);
    return *found;
  }
  static std::string report_markdown() {
    std::ifstream in(out() / "report.md");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static std::string findings(const ampbench::reports::Report& report, const std::string& cell_prefix,
                              const std::string& id) {
    std::string sentences;
    for (const auto& finding : report.explanation) {
      if (finding.cell.rfind(cell_prefix, 0) == 0 && finding.id == id) sentences += finding.sentence + "\n";
    }
    return sentences;
  }

  static ampbench::testing::ScratchDir* dir_;
  static ampbench::testing::ProcessResult* run_;
};
ampbench::testing::ScratchDir* NumericsDefects::dir_ = nullptr;
ampbench::testing::ProcessResult* NumericsDefects::run_ = nullptr;

TEST_F(NumericsDefects, ALayerAboveFloat16sRangeIsCaughtAndNamed) {
  ASSERT_EQ(run_->exit_code, 0) << run_->out << run_->err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  // Without a scaler the loss turns non-finite; with one, every step is skipped and nothing learns.
  EXPECT_EQ(cell(report, "loud-layer", "fp16-noscale").divergence->verdict, DivergenceVerdict::kNonFiniteLoss);
  EXPECT_EQ(cell(report, "loud-layer", "fp16").divergence->verdict, DivergenceVerdict::kDiverged);
  EXPECT_EQ(cell(report, "loud-layer", "bf16").divergence->verdict, DivergenceVerdict::kWithinFloor);
  for (const char* mode : {"fp16", "fp16-noscale"}) {
    const auto& layers = *cell(report, "loud-layer", mode).numerics->run.layers;
    ASSERT_FALSE(layers.non_finite_origins.empty()) << mode;
    for (const auto& origin : layers.non_finite_origins) {
      EXPECT_EQ(origin.module, "loud") << mode << " step " << origin.step;
      EXPECT_EQ(origin.tensor, "output") << mode << " step " << origin.step;
    }
    const auto prefix = std::string("loud-layer/") + mode + "/";
    EXPECT_NE(findings(report, prefix, "layer-overflow").find("Layer loud's forward output reaches"), std::string::npos)
        << mode;
    EXPECT_NE(findings(report, prefix, "non-finite-origin").find("layer loud's forward output"), std::string::npos)
        << mode;
  }
  EXPECT_EQ(cell(report, "loud-layer", "fp16").numerics->run.layers->bad_steps, 48);
  // No scale fits an overflowing forward: the start-up tried 2^16 down to 1 and left the pass at 2^16.
  const auto& calibration = *cell(report, "loud-layer", "fp16").numerics->run.scale_calibration;
  EXPECT_FALSE(calibration.settled);
  EXPECT_EQ(calibration.skipped_tries, 17);
  EXPECT_EQ(calibration.start_scale(), 65536.0);
  const std::string start_up = "loud-layer/fp16/cpu: no scale down to 1 fitted in 17 overflowing tries";
  EXPECT_NE(report_markdown().find(start_up), std::string::npos);
  std::ifstream html(out() / "report.html");
  const std::string page{std::istreambuf_iterator<char>(html), std::istreambuf_iterator<char>()};
  EXPECT_NE(page.find("id=\"scale-calibration\""), std::string::npos);
  EXPECT_NE(page.find(start_up), std::string::npos);
  EXPECT_TRUE(findings(report, "loud-layer/bf16/", "layer-overflow").empty()) << "bfloat16 holds it";

  // `explain` reads the same evidence back from the file.
  const auto explain =
      run_process({NUMERICS_DEFECTS_BENCH, "explain", (out() / "report.json").string(), "--cell", "loud-layer/fp16/"});
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_NE(explain.out.find("above float16's 65504"), std::string::npos) << explain.out;
  EXPECT_NE(explain.out.find("The GradScaler skipped every one of the 48 steps of the numerics pass, so the model "
                             "never trained"),
            std::string::npos)
      << explain.out;
  EXPECT_NE(explain.out.find("each time the first tensor to turn non-finite was layer loud's forward output"),
            std::string::npos)
      << explain.out;
}

TEST_F(NumericsDefects, GradientsFloat16FlushesWithoutAScaleAreCaughtAndTheirLayersNamed) {
  ASSERT_EQ(run_->exit_code, 0) << run_->out << run_->err;
  const auto report = ampbench::reports::read_report(out() / "report.json");
  EXPECT_EQ(cell(report, "tiny-loss", "fp16-noscale").divergence->verdict, DivergenceVerdict::kDiverged);
  EXPECT_EQ(cell(report, "tiny-loss", "fp16").divergence->verdict, DivergenceVerdict::kWithinFloor);
  const auto flushed = findings(report, "tiny-loss/fp16-noscale/", "layer-flush");
  for (const char* layer : {"Gradients of layer out: 100% flushed", "Gradients of layer hidden:"}) {
    EXPECT_NE(flushed.find(layer), std::string::npos) << flushed;
  }
  EXPECT_NE(flushed.find("no GradScaler"), std::string::npos) << flushed;
  // With the scaler's 2^16 the output layer's gradient keeps nearly all of itself.
  EXPECT_EQ(findings(report, "tiny-loss/fp16/", "layer-flush").find("layer out: 100%"), std::string::npos);

  const auto markdown = report_markdown();
  EXPECT_NE(markdown.find("Ranges per layer"), std::string::npos);
  EXPECT_NE(markdown.find("`tiny-loss/fp16-noscale/cpu/default`"), std::string::npos);
  EXPECT_NE(markdown.find("| out | "), std::string::npos) << markdown;
}

}  // namespace
