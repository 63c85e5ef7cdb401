// PyTorch's "gradient penalty" AMP example in C++ with ampbench's Autocast and GradScaler,
// replayed step by step against the same loop in Python (reference/gradient_penalty_reference.py,
// a CTest fixture, same wheel, same model, data and seed): the scale each step ran with, the scale
// and growth tracker after update(), which steps were skipped, the loss, the penalty, the
// parameters after every step, and GradNormRecorder's norm of the unscaled gradients against
// torch.nn.utils.get_total_norm. The initial scale (2^20) overflows float16 in backward, so the
// scaler skips and backs off on its own, then grows again.
//
// Tolerance: none, bit for bit. On CPU both sides run the same kernels: ampbench's autocast
// casts exactly as LibTorch's native autocast (autocast_conformance_test), so forward, both
// backward passes, the fused unscale and the optimizers (torch::optim::SGD with momentum as
// Python's SGD(foreach=False); FusedAdam as Adam(fused=True)) compute the same values.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "ampbench/amp/autocast.h"
#include "ampbench/amp/grad_norm_recorder.h"
#include "ampbench/amp/grad_scaler.h"
#include "reference_replay.h"

namespace {

using ampbench::amp::Autocast;
using ampbench::amp::GradNormRecorder;
using ampbench::amp::GradScaler;
using ampbench::amp::StepOutcome;
using ampbench::amp::testing::decode;
using ampbench::amp::testing::expect_close;
using ampbench::amp::testing::kExact;
using nlohmann::json;
constexpr auto kCpu = c10::DeviceType::CPU;
const char* const kScenarios[] = {"sgd", "adam_fused"};

const json& reference() { return ampbench::amp::testing::reference_document(AMPBENCH_GRADIENT_PENALTY_REFERENCE_JSON); }

struct PenaltyStep {
  double scale_used;
  torch::Tensor loss;
  torch::Tensor penalty;
  torch::Tensor total_loss;
  StepOutcome outcome;
};

// One iteration of the documented example, as docs/amp.md shows it.
PenaltyStep gradient_penalty_step(torch::nn::Sequential& model, torch::optim::Optimizer& optimizer, GradScaler& scaler,
                                  GradNormRecorder& recorder, const torch::Tensor& inputs,
                                  const torch::Tensor& targets) {
  optimizer.zero_grad();
  torch::Tensor loss;
  {
    Autocast autocast(kCpu, torch::kHalf);
    loss = torch::mse_loss(model->forward(inputs), targets);
  }
  // Gradients of the scaled loss, kept in the graph (create_graph) so the penalty can be
  // differentiated; they are not owned by an optimizer, so they are unscaled by hand.
  auto grads = torch::autograd::grad({scaler.scale(loss)}, model->parameters(), /*grad_outputs=*/{},
                                     /*retain_graph=*/std::nullopt, /*create_graph=*/true);
  const double inv_scale = 1.0 / scaler.get_scale();
  for (auto& grad : grads) grad = grad * inv_scale;
  torch::Tensor penalty;
  torch::Tensor total_loss;
  {
    Autocast autocast(kCpu, torch::kHalf);
    penalty = grads[0].pow(2).sum();
    for (std::size_t i = 1; i < grads.size(); ++i) penalty = penalty + grads[i].pow(2).sum();
    penalty = penalty.sqrt();
    total_loss = loss + penalty;
  }
  scaler.scale(total_loss).backward();
  recorder.record(optimizer, scaler);  // the unscaled norm, no host sync
  const auto outcome = scaler.step(optimizer);
  scaler.update();
  return {1.0 / inv_scale, loss.detach(), penalty.detach(), total_loss.detach(), outcome};
}

class GradientPenaltyConformance : public testing::TestWithParam<const char*> {};

TEST_P(GradientPenaltyConformance, MatchesPythonStepByStep) {
  torch::set_num_threads(1);  // as the reference: the same reduction order
  // A copy: g++ 13 flags a kept reference (-Wdangling-reference).
  const json spec = ampbench::amp::testing::reference_scenario(reference(), GetParam());
  const json& dims = reference().at("dims");
  const int64_t batch = reference().at("batch");
  auto model = ampbench::amp::testing::make_model(spec.at("weights"), dims);
  auto optimizer = ampbench::amp::testing::make_optimizer(spec.at("optimizer"), model->parameters());
  const bool fused = spec.at("optimizer").value("fused", false);
  const json& scaler_spec = spec.at("scaler");
  GradScaler scaler(kCpu, {.init_scale = scaler_spec.at("init_scale"),
                           .growth_factor = scaler_spec.at("growth_factor"),
                           .backoff_factor = scaler_spec.at("backoff_factor"),
                           .growth_interval = scaler_spec.at("growth_interval")});
  GradNormRecorder recorder;
  const json& expected_steps = spec.at("expected");
  std::set<bool> skips_seen;

  for (int64_t step = 0; step < spec.at("steps").get<int64_t>(); ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const json& expected = expected_steps[step];
    const auto inputs = decode(spec.at("inputs")[step]).reshape({batch, dims[0]});
    const auto targets = decode(spec.at("targets")[step]).reshape({batch, dims[2]});
    const auto result = gradient_penalty_step(model, *optimizer, scaler, recorder, inputs, targets);

    EXPECT_EQ(result.scale_used, expected.at("scale_used").get<double>());
    expect_close(result.loss, json::array({expected.at("loss")}), "loss", kExact);
    expect_close(result.penalty, json::array({expected.at("penalty")}), "penalty", kExact);
    expect_close(result.total_loss, json::array({expected.at("total_loss")}), "loss + penalty", kExact);
    if (fused) {
      EXPECT_EQ(result.outcome, StepOutcome::kDecidedOnDevice);  // skips: see telemetry below
    } else {
      EXPECT_EQ(result.outcome == StepOutcome::kSkipped, expected.at("skipped").get<bool>());
    }
    EXPECT_EQ(scaler.get_scale(), expected.at("scale").get<double>());
    EXPECT_EQ(scaler.get_growth_tracker(), expected.at("growth_tracker").get<int64_t>());
    const auto params = model->parameters();
    for (std::size_t p = 0; p < params.size(); ++p) {
      expect_close(params[p], expected.at("params")[p], "param " + std::to_string(p) + " after the step", kExact);
    }
    skips_seen.insert(expected.at("skipped").get<bool>());
  }
  EXPECT_EQ(skips_seen, (std::set<bool>{false, true})) << "the scenario must both skip and step";

  const auto telemetry = scaler.telemetry();
  const auto norms = recorder.norms();
  ASSERT_EQ(telemetry.size(), expected_steps.size());
  ASSERT_EQ(norms.size(), expected_steps.size());
  for (std::size_t step = 0; step < expected_steps.size(); ++step) {
    const json& expected = expected_steps[step];
    EXPECT_EQ(telemetry[step].scale, expected.at("scale_used").get<double>()) << "telemetry step " << step;
    EXPECT_EQ(telemetry[step].skipped, expected.at("skipped").get<bool>()) << "telemetry step " << step;
    expect_close(torch::tensor(norms[step], torch::kDouble), json::array({expected.at("grad_norm")}),
                 "unscaled gradient norm of step " + std::to_string(step), kExact);
    EXPECT_EQ(std::isfinite(norms[step]), !expected.at("skipped").get<bool>()) << "norm of step " << step;
  }
}

std::string scenario_name(const testing::TestParamInfo<const char*>& param_info) { return param_info.param; }

INSTANTIATE_TEST_SUITE_P(Reference, GradientPenaltyConformance, testing::ValuesIn(kScenarios), scenario_name);

TEST(GradientPenaltyConformanceReference, EveryPythonScenarioIsReplayed) {
  ampbench::amp::testing::expect_replays_every_scenario(
      reference(), std::set<std::string>(std::begin(kScenarios), std::end(kScenarios)));
}

}  // namespace
