// The numerics pass: fixed steps from the same weights and batches in every mode, held-out float32
// evaluations, FP32's floor run, and the verdicts it leads to, a forced FP16 underflow included.
#include "measure/numerics_pass.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ampbench/harness/run.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/stats.h"
#include "ampbench/reports/table.h"
#include "ampbench/workloads/preset.h"
#include "ampbench/workloads/registry.h"

namespace {

using ampbench::harness::run_numerics;
using ampbench::harness::WorkloadTask;
using ampbench::reports::Numerics;
using ampbench::workloads::Batch;
using ampbench::workloads::Workload;
using ampbench::workloads::WorkloadOptions;

WorkloadTask numerics_task(const std::string& workload, std::vector<std::string> modes, std::int64_t steps) {
  WorkloadTask task;
  task.config.device = "cpu";
  task.config.preset = "default";
  task.workload = workload;
  task.modes = std::move(modes);
  task.config.numerics_steps = steps;
  return task;
}

TEST(NumericsEvalSteps, SixteenEvaluationsAfterTheStartTheLastAfterTheFinalStep) {
  const auto at48 = ampbench::harness::numerics_eval_steps(48);
  ASSERT_EQ(at48.size(), 17u);
  EXPECT_EQ(at48[1], 3);
  EXPECT_EQ(at48.back(), 48);
  EXPECT_EQ(ampbench::harness::numerics_eval_steps(50),
            (std::vector<std::int64_t>{0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 50}));
  EXPECT_EQ(ampbench::harness::numerics_eval_steps(3), (std::vector<std::int64_t>{0, 1, 2, 3}));
}

TEST(NumericsPass, EveryModeStartsAlikeAndFp32CarriesItsFloorRun) {
  const auto results = run_numerics(numerics_task("simplenet", {"fp32", "bf16"}, 8));
  ASSERT_EQ(results.size(), 2u);
  const auto& fp32 = results[0];
  const auto& bf16 = results[1];
  for (const auto& numerics : results) {
    EXPECT_TRUE(numerics.error.empty()) << numerics.error;
    EXPECT_EQ(numerics.steps, 8);
    EXPECT_EQ(numerics.eval_steps, ampbench::harness::numerics_eval_steps(8));
    EXPECT_EQ(numerics.run.train_loss.size(), 8u);
    EXPECT_EQ(numerics.run.eval_loss.size(), numerics.eval_steps.size());
    EXPECT_GT(numerics.run.wall_s, 0.0);
  }
  ASSERT_TRUE(fp32.floor.has_value());
  EXPECT_EQ(fp32.floor_perturbation, "data order reversed");
  EXPECT_FALSE(bf16.floor.has_value());
  // Same weights and held-out batches: the evaluation before any step is the same, bit for bit.
  EXPECT_EQ(bf16.run.eval_loss.front(), fp32.run.eval_loss.front());
  EXPECT_EQ(fp32.floor->eval_loss.front(), fp32.run.eval_loss.front());
  // The floor trains on the same batches in the other order: its first step's batch is FP32's last.
  EXPECT_NE(fp32.floor->train_loss.front(), fp32.run.train_loss.front());
  EXPECT_NE(fp32.floor->eval_loss.back(), fp32.run.eval_loss.back());
  EXPECT_LT(fp32.run.eval_loss.back(), fp32.run.eval_loss.front());  // it learns
  // Deterministic: a second pass gives the same curves.
  const auto again = run_numerics(numerics_task("simplenet", {"fp32"}, 8));
  EXPECT_EQ(again[0].run.eval_loss, fp32.run.eval_loss);
  EXPECT_EQ(again[0].floor->train_loss, fp32.floor->train_loss);
}

// The tasks keep learning: over the last quarter of the default preset's pass, FP32's held-out
// loss still falls in every workload (a saturated task, as SimpleCNN's teacher labels were, makes
// every divergence look small).
TEST(NumericsPass, Fp32StillLearnsInTheLastQuarterOfTheDefaultPass) {
  const auto steps = ampbench::workloads::preset_info(ampbench::workloads::Preset::kDefault).numerics_steps;
  for (const auto& info : ampbench::workloads::known_workloads()) {
    const auto results = run_numerics(numerics_task(info.name, {"fp32"}, steps));
    ASSERT_EQ(results.size(), 1u) << info.name;
    const auto& eval = results[0].run.eval_loss;
    const auto& at = results[0].eval_steps;
    const auto three_quarters = std::find_if(at.begin(), at.end(), [&](auto step) { return 4 * step >= 3 * steps; });
    const auto before = eval[static_cast<std::size_t>(three_quarters - at.begin())];
    EXPECT_LT(eval.back(), before) << info.name << ": " << before << " at step " << *three_quarters << ", "
                                   << eval.back() << " at the end";
    EXPECT_LT(eval.back(), 0.9 * eval.front()) << info.name;
  }
}

TEST(NumericsPass, NothingRunsWithoutTheReferenceModeOrWithZeroSteps) {
  EXPECT_TRUE(run_numerics(numerics_task("simplenet", {"bf16"}, 8)).empty());
  EXPECT_TRUE(run_numerics(numerics_task("simplenet", {"fp32", "bf16"}, 0)).empty());
}

TEST(NumericsPass, AModeThatFailsRecordsItsErrorAndTheOthersRun) {
  int built = 0;
  const auto results = run_numerics(numerics_task("simplenet", {"fp32", "bf16"}, 4), {},
                                    [&](const WorkloadOptions& options) -> std::unique_ptr<Workload> {
                                      // FP32 builds twice (its run and its floor run); bf16 third.
                                      if (++built == 3) throw std::runtime_error("no memory for bf16");
                                      return ampbench::workloads::make_workload("simplenet", options);
                                    });
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].error.empty()) << results[0].error;
  EXPECT_EQ(results[1].error, "no memory for bf16");
}

// An MLP regression whose loss is in tiny units (x 2^-24), trained by SGD with the learning rate
// scaled up to match: FP32 trains exactly as at unit scale, but under float16 autocast the
// gradient reaching the float16 layers (about 2^-29 x the error) is below float16's
// smallest subnormal and becomes zero, so without loss scaling nothing learns. The GradScaler's
// 2^16 lifts it back into range; bfloat16 has float32's range.
class TinyLossRegression final : public Workload {
 public:
  explicit TinyLossRegression(const WorkloadOptions& /*options: one size, on the CPU*/) {
    torch::manual_seed(7);
    teacher_ = make_mlp();
    torch::manual_seed(11);
    student_ = make_mlp();
    for (auto& parameter : teacher_->parameters()) parameter.set_requires_grad(false);
  }
  std::string name() const override { return "tiny-loss"; }
  std::string describe() const override { return "MLP 16->64->1, MSE x 2^-24, SGD"; }
  torch::nn::Module& module() override { return *student_; }
  torch::Tensor loss(const Batch& batch) override {
    return torch::mse_loss(student_->forward(batch.input), batch.target) * kLossUnit;
  }
  std::unique_ptr<torch::optim::Optimizer> make_optimizer() override {
    return std::make_unique<torch::optim::SGD>(student_->parameters(), torch::optim::SGDOptions(0.05 / kLossUnit));
  }
  Batch make_batch(std::int64_t index) override {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(1000 + static_cast<std::uint64_t>(index));
    auto input = at::randn({64, 16}, generator);
    torch::NoGradGuard no_grad;
    auto target = teacher_->forward(input);
    return {input, target};
  }
  std::optional<double> flops_per_step() const override { return 3.0 * 2.0 * 64 * (16 * 64 + 64); }
  std::int64_t samples_per_step() const override { return 64; }

 private:
  static constexpr double kLossUnit = 1.0 / (1 << 24);
  static torch::nn::Sequential make_mlp() {
    return torch::nn::Sequential(torch::nn::Linear(16, 64), torch::nn::ReLU(), torch::nn::Linear(64, 1));
  }
  torch::nn::Sequential student_{nullptr};
  torch::nn::Sequential teacher_{nullptr};
};

TEST(NumericsPass, Fp16WithoutScalingDivergesWhereGradientsUnderflowAndTheScaledModesStayWithinTheFloor) {
  const auto results = run_numerics(numerics_task("tiny-loss", {"fp32", "fp16", "bf16", "fp16-noscale"}, 48), {},
                                    [](const WorkloadOptions& options) -> std::unique_ptr<Workload> {
                                      return std::make_unique<TinyLossRegression>(options);
                                    });
  ASSERT_EQ(results.size(), 4u);
  const Numerics& fp32 = results[0];
  ASSERT_TRUE(fp32.error.empty()) << fp32.error;
  EXPECT_LT(fp32.run.eval_loss.back(), 0.5 * fp32.run.eval_loss.front());  // FP32 learns
  const auto fp16 = ampbench::reports::compute_divergence(fp32, results[1]);
  const auto bf16 = ampbench::reports::compute_divergence(fp32, results[2]);
  const auto noscale = ampbench::reports::compute_divergence(fp32, results[3]);
  EXPECT_EQ(noscale.verdict, ampbench::reports::DivergenceVerdict::kDiverged)
      << noscale.final_relative_difference << " vs " << noscale.final_floor;
  EXPECT_GT(noscale.ratio_to_floor, ampbench::reports::kFloorMultiple);
  EXPECT_EQ(fp16.verdict, ampbench::reports::DivergenceVerdict::kWithinFloor)
      << fp16.final_relative_difference << " vs " << fp16.final_floor;
  EXPECT_EQ(bf16.verdict, ampbench::reports::DivergenceVerdict::kWithinFloor)
      << bf16.final_relative_difference << " vs " << bf16.final_floor;
  // Figures, not just verdicts: both the floor and AMP's distance are measured, not zero.
  EXPECT_GT(fp16.final_floor, 0.0);
  EXPECT_GT(fp16.final_relative_difference, 0.0);
  EXPECT_GT(bf16.final_relative_difference, 0.0);

  // ... and that is what the report says, row by row, with the figures.
  ampbench::reports::Report report;
  const std::vector<std::string> modes{"fp32", "fp16", "bf16", "fp16-noscale"};
  for (std::size_t i = 0; i < modes.size(); ++i) {
    ampbench::reports::CellResult cell;
    cell.workload = "tiny-loss";
    cell.mode = modes[i];
    cell.device = "cpu";
    cell.step_times_s = {1e-3};
    cell.numerics = results[i];
    report.cells.push_back(cell);
  }
  ampbench::reports::relate_to_fp32(report);
  const auto table = ampbench::reports::render_table(report);
  EXPECT_NE(table.find("diverged ("), std::string::npos) << table;
  EXPECT_NE(table.find("within the noise floor ("), std::string::npos) << table;
  EXPECT_EQ(report.cells[3].divergence->verdict, ampbench::reports::DivergenceVerdict::kDiverged);
}

}  // namespace
