// The numerics pass: fixed steps from the same weights and batches in every mode, held-out float32
// evaluations, FP32's floor run, and the verdicts it leads to, a forced FP16 underflow included.
#include "measure/numerics_pass.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "ampbench/harness/run.h"
#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/stats.h"
#include "ampbench/reports/table.h"
#include "ampbench/workloads/module_workload.h"
#include "ampbench/workloads/preset.h"
#include "ampbench/workloads/registry.h"
#include "support/linear_workload_spec.h"
#include "support/numerics_defect_workloads.h"

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

TEST(NumericsPass, Fp16WithoutScalingDivergesWhereGradientsUnderflowAndTheScaledModesStayWithinTheFloor) {
  const auto results = run_numerics(numerics_task("tiny-loss", {"fp32", "fp16", "bf16", "fp16-noscale"}, 48), {},
                                    [](const WorkloadOptions& options) -> std::unique_ptr<Workload> {
                                      return std::make_unique<ampbench::testing::TinyLossRegression>(options);
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
  EXPECT_NE(table.find("diverged"), std::string::npos) << table;  // the figures may wrap onto a line of their own
  EXPECT_NE(table.find("within the noise floor"), std::string::npos) << table;
  EXPECT_EQ(report.cells[3].divergence->verdict, ampbench::reports::DivergenceVerdict::kDiverged);
}

// SimpleNet's seed pass: its first gradients overflow float16 at the GradScaler's 2^16 (their bias
// gradient is the sum of 100 samples' scaled errors). Trained as PyTorch's loop would, FP16 skipped
// step 0 and stayed a step behind FP32, 5% of the eval loss: "above the floor" here, "diverged" on
// an H200, whose floor is smaller. The start-up is found before the pass, so nothing is skipped in it.
TEST(NumericsPass, TheGradScalersStartUpIsFoundBeforeThePassSoItsCurveIsNotAStepBehind) {
  auto task = numerics_task("simplenet", {"fp32", "fp16", "bf16"}, 64);
  task.config.preset = "seed";
  const auto results = run_numerics(task);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& numerics : results) ASSERT_TRUE(numerics.error.empty()) << numerics.error;
  EXPECT_FALSE(results[0].run.scale_calibration.has_value()) << "FP32 has no scaler";
  EXPECT_FALSE(results[2].run.scale_calibration.has_value()) << "neither has BF16";
  ASSERT_TRUE(results[1].run.scale_calibration.has_value());
  const auto& calibration = *results[1].run.scale_calibration;
  EXPECT_TRUE(calibration.settled);
  EXPECT_EQ(calibration.initial_scale, 65536.0);
  EXPECT_GE(calibration.skipped_tries, 1);
  EXPECT_EQ(calibration.start_scale(), std::ldexp(65536.0, -static_cast<int>(calibration.skipped_tries)));
  const auto& layers = *results[1].run.layers;
  EXPECT_EQ(layers.bad_steps, 0);
  EXPECT_EQ(layers.scales.front(), calibration.start_scale()) << "the pass starts from the scale found";
  const auto fp16 = ampbench::reports::compute_divergence(results[0], results[1]);
  EXPECT_EQ(fp16.verdict, ampbench::reports::DivergenceVerdict::kWithinFloor)
      << fp16.final_relative_difference << " vs " << fp16.final_floor;
  EXPECT_LT(fp16.ratio_to_floor, 0.2) << "a one-step lag was about 1.2x the floor on the CPU";
}

// The per-layer diagnostics (issue #34) on the two seeded defects.
const ampbench::reports::LayerRanges& layer_named(const ampbench::reports::LayerDiagnostics& diagnostics,
                                                  const std::string& module) {
  for (const auto& layer : diagnostics.layers) {
    if (layer.module == module) return layer;
  }
  throw std::runtime_error("no layer " + module);
}

TEST(LayerRanges, NameTheLayerWhoseOutputOverflowsFloat16AndWhereTheSkippedStepsTurnedNonFinite) {
  const auto results = run_numerics(numerics_task("loud-layer", {"fp32", "fp16", "bf16"}, 8), {},
                                    [](const WorkloadOptions& options) -> std::unique_ptr<Workload> {
                                      return std::make_unique<ampbench::testing::LoudLayerRegression>(options);
                                    });
  ASSERT_EQ(results.size(), 3u);
  for (const auto& numerics : results) ASSERT_TRUE(numerics.error.empty()) << numerics.error;
  EXPECT_FALSE(results[0].floor->layers) << "the floor run is not observed";
  const auto& fp32 = *results[0].run.layers;
  // Observed: the training step after each evaluation but the last (8 steps: every step).
  EXPECT_EQ(fp32.steps, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(fp32.scales, std::vector<double>(8, 1.0));
  ASSERT_EQ(fp32.layers.size(), 3u);
  EXPECT_EQ(fp32.layers[0].module, "hidden");  // in the order the forward reached them
  EXPECT_EQ(fp32.layers[1].module, "loud");
  EXPECT_EQ(fp32.layers[2].module, "head");
  const auto& loud = fp32.layers[1].steps[0];
  ASSERT_TRUE(loud.output && loud.gradient);
  EXPECT_EQ(loud.output->dtype, "float32");
  EXPECT_EQ(loud.output->elements, 64 * 64);
  EXPECT_GT(loud.output->amax, 65504.0);
  EXPECT_GT(loud.output->above_fp16_max, 0.0);
  EXPECT_EQ(loud.output->non_finite, 0.0);
  EXPECT_LT(fp32.layers[0].steps[0].output->amax, 100.0);
  EXPECT_EQ(fp32.bad_steps, 0);
  EXPECT_TRUE(fp32.non_finite_origins.empty());

  const auto& fp16 = *results[1].run.layers;
  EXPECT_EQ(fp16.bad_steps, 8);  // inf in the forward: every step skipped, whatever the scale
  ASSERT_EQ(fp16.non_finite_origins.size(), 8u);
  for (const auto& origin : fp16.non_finite_origins) {
    EXPECT_EQ(origin.module, "loud");
    EXPECT_EQ(origin.tensor, "output");
  }
  EXPECT_EQ(fp16.scales[0], 65536.0);
  EXPECT_EQ(fp16.scales[1], 32768.0);  // backed off after the skipped step
  const auto& loud16 = layer_named(fp16, "loud").steps[0];
  EXPECT_EQ(loud16.output->dtype, "float16");
  EXPECT_GT(loud16.output->non_finite, 0.0);
  EXPECT_EQ(layer_named(fp16, "hidden").steps[0].output->non_finite, 0.0);

  const auto& bf16 = *results[2].run.layers;  // float32's range: no overflow
  EXPECT_EQ(bf16.bad_steps, 0);
  EXPECT_EQ(layer_named(bf16, "loud").steps[0].output->dtype, "bfloat16");
  EXPECT_EQ(layer_named(bf16, "loud").steps[0].output->non_finite, 0.0);
  EXPECT_GT(layer_named(bf16, "loud").steps[0].output->amax, 65504.0);
}

TEST(LayerRanges, ShowTheGradientsFloat16FlushesWithoutAScaleAndKeepsWithOne) {
  const auto results = run_numerics(numerics_task("tiny-loss", {"fp32", "fp16", "fp16-noscale"}, 4), {},
                                    [](const WorkloadOptions& options) -> std::unique_ptr<Workload> {
                                      return std::make_unique<ampbench::testing::TinyLossRegression>(options);
                                    });
  ASSERT_EQ(results.size(), 3u);
  const auto& fp32 = layer_named(*results[0].run.layers, "out").steps[0].gradient;
  const auto& fp16 = layer_named(*results[1].run.layers, "out").steps[0].gradient;
  const auto& noscale = layer_named(*results[2].run.layers, "out").steps[0].gradient;
  ASSERT_TRUE(fp32 && fp16 && noscale);
  // In float32 the gradient is tiny but there: float16 would flush most of it at scale 1.
  EXPECT_EQ(fp32->zero, 0.0);
  EXPECT_GT(fp32->flushed_in_fp16, 0.5);
  EXPECT_LT(fp32->amax, 1e-6);
  // Without a scale float16 did flush it; with the scaler's 2^16 it kept it.
  EXPECT_EQ(noscale->dtype, "float16");
  EXPECT_GT(noscale->zero, 0.5);
  EXPECT_LT(fp16->zero, 0.1);
  EXPECT_NEAR(fp16->amax / fp32->amax, 65536.0, 65536.0 * 0.05);  // the scaled gradient, as the scaler sees it
  EXPECT_EQ(results[1].run.layers->scales[0], 65536.0);
}

// Every cell of the default suite gets a row per module with parameters, by its registered path,
// in the order the forward reaches them, each with its output and gradient on the observed steps.
TEST(LayerRanges, EveryBuiltInWorkloadGetsARowPerModuleUnderItsOwnName) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected{
      {"simplenet", {"0", "2", "4"}},  // a Sequential: Linear, ReLU, Linear, ReLU, Linear
      {"simplecnn", {"conv1", "conv2", "fc"}},
      {"transformer", {"norm1", "qkv", "out", "norm2", "fc1", "fc2"}},
  };
  for (const auto& [workload, modules] : expected) {
    for (const auto& numerics : run_numerics(numerics_task(workload, {"fp32", "fp16", "bf16"}, 2))) {
      ASSERT_TRUE(numerics.error.empty()) << workload << ": " << numerics.error;
      const auto& diagnostics = *numerics.run.layers;
      EXPECT_TRUE(diagnostics.note.empty()) << workload << ": " << diagnostics.note;
      std::vector<std::string> named;
      for (const auto& layer : diagnostics.layers) {
        named.push_back(layer.module);
        ASSERT_EQ(layer.steps.size(), diagnostics.steps.size()) << workload << " " << layer.module;
        EXPECT_TRUE(layer.steps.front().output && layer.steps.front().gradient) << workload << " " << layer.module;
      }
      EXPECT_EQ(named, modules) << workload;
    }
  }
}

TEST(LayerRanges, AModelWithoutSubmodulesGetsOneWholeModelRowAndANoteAndTupleOutputsAreHandled) {
  auto linear = run_numerics(numerics_task("linear", {"fp32"}, 2), {}, [](const WorkloadOptions& options) {
    return ampbench::workloads::make_module_workload(ampbench::testing::linear_workload_spec("linear"), options);
  });
  const auto& whole = *linear[0].run.layers;
  ASSERT_EQ(whole.layers.size(), 1u);
  EXPECT_EQ(whole.layers[0].module, ampbench::reports::kWholeModelLayer);
  EXPECT_NE(whole.note.find("no submodules"), std::string::npos) << whole.note;

  // A GRU returns (output, hidden state): both are the module's outputs.
  auto spec = ampbench::testing::linear_workload_spec("gru");
  torch::nn::GRU gru(torch::nn::GRUOptions(4, 3).batch_first(true));
  torch::nn::Linear head(3, 1);
  auto model = std::make_shared<torch::nn::Module>();
  model->register_module("gru", gru);
  model->register_module("head", head);
  spec.module = model;
  spec.forward = [gru, head](const torch::Tensor& input) mutable {
    return head(std::get<0>(gru(input.unsqueeze(1))).squeeze(1));
  };
  auto recurrent = run_numerics(numerics_task("gru", {"fp32", "bf16"}, 2), {}, [&spec](const WorkloadOptions& options) {
    return make_module_workload(spec, options);
  });
  for (const auto& numerics : recurrent) {
    ASSERT_TRUE(numerics.error.empty()) << numerics.error;
    EXPECT_EQ(layer_named(*numerics.run.layers, "gru").steps[0].output->elements, 8 * 3 + 3 * 8)
        << "the output sequence and the final hidden state";
    EXPECT_TRUE(layer_named(*numerics.run.layers, "head").steps[0].gradient);
  }
}

TEST(LayerRanges, CountEachValueWhereFloat16WouldPutIt) {
  // One Linear 1->8 without bias on an input of ones: its output is its weights, chosen one per
  // range: zero, flushed (<= 2^-25), subnormal, float16's smallest normal, normal, its largest,
  // above it, inf.
  auto spec = ampbench::testing::linear_workload_spec("ranges");
  torch::nn::Linear linear(torch::nn::LinearOptions(1, 8).bias(false));
  {
    torch::NoGradGuard no_grad;
    linear->weight.copy_(torch::tensor({0.0, 1e-8, 1e-6, std::ldexp(1.0, -14), 1.0, 65504.0, -1e5,
                                        std::numeric_limits<double>::infinity()})
                             .reshape({8, 1}));
  }
  spec.module = linear.ptr();
  spec.forward = ampbench::workloads::forward_of(linear);
  spec.batch = [](std::int64_t) { return Batch{torch::ones({1, 1}), torch::zeros({1, 8})}; };
  spec.loss = [](const torch::Tensor& output, const torch::Tensor&) { return output.sum(); };
  const auto results = run_numerics(numerics_task("ranges", {"fp32"}, 1), {}, [&spec](const WorkloadOptions& options) {
    return ampbench::workloads::make_module_workload(spec, options);
  });
  const auto& diagnostics = *results[0].run.layers;
  ASSERT_EQ(diagnostics.layers.size(), 1u);
  EXPECT_EQ(diagnostics.layers[0].module, ampbench::reports::kWholeModelLayer);
  const auto& output = *diagnostics.layers[0].steps[0].output;
  EXPECT_EQ(output.elements, 8);
  EXPECT_EQ(output.amax, 1e5);
  EXPECT_EQ(output.zero, 1.0 / 8);
  EXPECT_EQ(output.flushed_in_fp16, 1.0 / 8);  // 1e-8
  EXPECT_EQ(output.fp16_subnormal, 2.0 / 8);   // 1e-8 and 1e-6; 2^-14 is normal
  EXPECT_EQ(output.above_fp16_max, 1.0 / 8);   // -1e5; 65504 is float16's own
  EXPECT_EQ(output.non_finite, 1.0 / 8);
  // No scaler: the first step with a non-finite loss, and where it began.
  EXPECT_EQ(diagnostics.bad_steps, 1);
  ASSERT_EQ(diagnostics.non_finite_origins.size(), 1u);
  EXPECT_EQ(diagnostics.non_finite_origins[0].step, 0);
  EXPECT_EQ(diagnostics.non_finite_origins[0].module, ampbench::reports::kWholeModelLayer);
  EXPECT_EQ(diagnostics.non_finite_origins[0].tensor, "output");
}

}  // namespace
