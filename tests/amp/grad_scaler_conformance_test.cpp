// ampbench's GradScaler against Python's torch.amp.GradScaler from the same wheel, step by step.
// reference/grad_scaler_reference.py (a CTest fixture) writes the scenarios and Python's
// results; this test replays each scenario in C++ and compares.
//
// Exact, bit for bit, wherever both sides run the same computation: scale, growth tracker,
// skipped flags, state_dict, losses and unscaled gradients in every scenario, and parameters and
// optimizer state under SGD and the fused optimizers (ampbench's FusedSGD/FusedAdam/FusedAdamW
// call the kernels of Python's fused=True).
//
// Non-fused Adam/AdamW are not the same computation: Python updates exp_avg with lerp_(grad,
// 1 - beta1), LibTorch's C++ Adam with mul_(beta1).add_(grad, 1 - beta1), and the two differ in
// the last bits. Left to run, that difference feeds back through the training (in
// two_models_two_losses through the shared losses into the SGD model's gradients and momentum
// buffer) and how far it grows in 12 steps depends on how every GEMM rounds, i.e. on the CPU
// (MKL takes its AVX-512 path only on Intel): a fixed tolerance held on AMD and failed on a Xeon.
// So each step of such a model starts from Python's parameters and optimizer state of the step
// before; everything else stays exact, and the step's exp_avg and parameters are compared with
// the rounding bound derived in adam_step_bound().
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "ampbench/amp/fused_optimizers.h"
#include "ampbench/amp/grad_scaler.h"
#include "reference_replay.h"

namespace {

using ampbench::amp::StepOutcome;
using ampbench::amp::testing::decode;
using ampbench::amp::testing::expect_close;
using ampbench::amp::testing::expect_within;
using ampbench::amp::testing::kExact;
using ampbench::amp::testing::make_model;
using ampbench::amp::testing::make_optimizer;
using nlohmann::json;
const char* const kScenarios[] = {"sgd",
                                  "adam",
                                  "adamw",
                                  "sgd_clip_after_unscale",
                                  "adam_accumulate_3",
                                  "two_models_two_losses",
                                  "set_scale",
                                  "backoff_to_tiny_scale",
                                  "sgd_fused",
                                  "adam_fused",
                                  "adamw_fused",
                                  "adam_fused_clip_after_unscale"};

const json& reference() { return ampbench::amp::testing::reference_document(AMPBENCH_GRAD_SCALER_REFERENCE_JSON); }

const json& scenario(const std::string& name) { return ampbench::amp::testing::reference_scenario(reference(), name); }

// The optimizer state of one parameter under Python's names (step as a float tensor).
std::map<std::string, torch::Tensor> state_of(torch::optim::Optimizer& optimizer, const torch::Tensor& param) {
  std::map<std::string, torch::Tensor> out;
  const auto it = optimizer.state().find(param.unsafeGetTensorImpl());
  if (it == optimizer.state().end()) {
    return out;
  }
  const auto add_adam = [&](const auto& s) {
    out["step"] = torch::tensor(static_cast<float>(s.step()));
    out["exp_avg"] = s.exp_avg();
    out["exp_avg_sq"] = s.exp_avg_sq();
    if (s.max_exp_avg_sq().defined()) {
      out["max_exp_avg_sq"] = s.max_exp_avg_sq();
    }
  };
  if (auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(it->second.get())) {
    out["momentum_buffer"] = sgd->momentum_buffer();
  } else if (auto* adam = dynamic_cast<torch::optim::AdamParamState*>(it->second.get())) {
    add_adam(*adam);
  } else if (auto* adamw = dynamic_cast<torch::optim::AdamWParamState*>(it->second.get())) {
    add_adam(*adamw);
  } else if (auto* fused_sgd = dynamic_cast<ampbench::amp::FusedSGDParamState*>(it->second.get())) {
    out["momentum_buffer"] = fused_sgd->momentum_buffer();
  } else if (auto* fused_adam = dynamic_cast<ampbench::amp::FusedAdamParamState*>(it->second.get())) {
    out["step"] = fused_adam->step();
    out["exp_avg"] = fused_adam->exp_avg();
    out["exp_avg_sq"] = fused_adam->exp_avg_sq();
    if (fused_adam->max_exp_avg_sq().defined()) out["max_exp_avg_sq"] = fused_adam->max_exp_avg_sq();
  }
  return out;
}

// SGD and the fused optimizers run the same kernels as Python's; non-fused Adam/AdamW do not.
bool same_computation(const json& optimizer_spec) {
  return optimizer_spec.at("type") == "sgd" || optimizer_spec.value("fused", false);
}

template <typename AdamState>
void load_adam_state(torch::optim::Optimizer& optimizer, const torch::Tensor& param, const json& want) {
  auto state = std::make_unique<AdamState>();
  state->step(static_cast<int64_t>(decode(want.at("step")).item<float>()));
  state->exp_avg(decode(want.at("exp_avg")).reshape(param.sizes()));
  state->exp_avg_sq(decode(want.at("exp_avg_sq")).reshape(param.sizes()));
  if (want.contains("max_exp_avg_sq")) {
    state->max_exp_avg_sq(decode(want.at("max_exp_avg_sq")).reshape(param.sizes()));
  }
  optimizer.state()[param.unsafeGetTensorImpl()] = std::move(state);
}

// Puts Python's parameters and Adam/AdamW state after the previous step into the C++ model, so
// that this step's comparison does not inherit the earlier steps' rounding differences.
void start_from_python(torch::nn::Sequential& model, torch::optim::Optimizer& optimizer, const json& optimizer_spec,
                       const json& want_params, const json& want_state) {
  torch::NoGradGuard no_grad;
  const auto params = model->parameters();
  for (std::size_t p = 0; p < params.size(); ++p) {
    params[p].copy_(decode(want_params.at(p)).reshape(params[p].sizes()));
    if (want_state.at(p).empty()) {
      continue;  // no step taken yet: the C++ optimizer has no state either
    }
    if (optimizer_spec.at("type") == "adam") {
      load_adam_state<torch::optim::AdamParamState>(optimizer, params[p], want_state.at(p));
    } else {
      load_adam_state<torch::optim::AdamWParamState>(optimizer, params[p], want_state.at(p));
    }
  }
}

struct AdamStepBound {
  torch::Tensor exp_avg;
  torch::Tensor param;
};

// How far LibTorch's C++ Adam/AdamW step may land from Python's, both taken from the same
// parameter, gradient and state, element by element (u = 2^-24, float32's unit roundoff; first
// order in u, every constant rounded up):
// - exp_avg. Python: fl(m + w*fl(g - m)) with w = fl(1 - beta1), at most 3 roundings, so
//   |P - (m + w(g - m))| <= u|P| + 2u*w|g - m|. C++: fl(fl(b*m) + w*g) with b = fl(beta1), at most
//   3 roundings: |C - (b*m + w*g)| <= u*b|m| + u*w|g| + u|C|. The exact values differ by
//   |1 - w - b|*|m| = 0.375u|m| (fl(0.1) and fl(0.9) do not add to 1). With |P|, |C| <= b|m| + w|g|:
//   |P - C| <= u(3.3|m| + 0.5|g|) for beta1 = 0.9, bounded here by u(4|m| + |g|).
// - exp_avg_sq, max_exp_avg_sq and so the denominator d are the same ops on both sides (exact).
// - param. Both compute fl(p' + fl(fl(-s*exp_avg) / d)) from the same p' (AdamW's weight decay
//   is the same mul_ on both sides), s = lr / (1 - beta1^step): the update terms differ by at most
//   s/d * (|P - C| + 4u|exp_avg|) (two roundings each), and rounding the two sums to float adds at
//   most one ulp of the larger result, <= 2u(|Python's result| + that difference).
// Checked against an op-for-op Python copy of LibTorch's step on 10^5 random elements under
// ATEN_CPU_CAPABILITY default, avx2 and avx512, cancellations included: at most 0.46 of the
// exp_avg bound and 0.98 of the param bound (the one-ulp term when a result sits on a power of two).
AdamStepBound adam_step_bound(const json& optimizer_spec, const torch::Tensor& exp_avg_before,
                              const torch::Tensor& grad, const torch::Tensor& param_before, const json& want_param,
                              const json& want_state) {
  constexpr double u = 0x1p-24;
  const double lr = optimizer_spec.at("lr"), beta1 = optimizer_spec.at("beta1"), beta2 = optimizer_spec.at("beta2");
  const double eps = optimizer_spec.at("eps"), weight_decay = optimizer_spec.at("weight_decay");
  // Adam (not AdamW) folds weight decay into the gradient, the same add on both sides.
  const auto g =
      optimizer_spec.at("type") == "adam" && weight_decay != 0.0 ? grad.add(param_before, weight_decay) : grad;
  const auto exp_avg_bound = u * (4.0 * exp_avg_before.to(torch::kDouble).abs() + g.to(torch::kDouble).abs());

  const double step = decode(want_state.at("step")).item<float>();
  const auto second_moment = decode(want_state.at(optimizer_spec.at("amsgrad") ? "max_exp_avg_sq" : "exp_avg_sq"));
  const auto denom = second_moment.to(torch::kDouble).sqrt() / std::sqrt(1.0 - std::pow(beta2, step)) + eps;
  const double step_size = lr / (1.0 - std::pow(beta1, step));
  const auto exp_avg = decode(want_state.at("exp_avg")).to(torch::kDouble).abs();
  const auto update_bound = step_size / denom * (exp_avg_bound.reshape(-1) + 4.0 * u * exp_avg);
  const auto result = decode(want_param).to(torch::kDouble).abs();
  return {exp_avg_bound, update_bound * (1.0 + 2.0 * u) + 2.0 * u * result};
}

// What adam_step_bound() needs from before the optimizer stepped (clones).
struct StepBefore {
  std::vector<torch::Tensor> params;
  std::vector<torch::Tensor> exp_avgs;  // zeros where no state existed yet, as the first step starts
};

StepBefore snapshot(torch::nn::Sequential& model, torch::optim::Optimizer& optimizer) {
  StepBefore out;
  for (const auto& param : model->parameters()) {
    out.params.push_back(param.detach().clone());
    auto state = state_of(optimizer, param);
    out.exp_avgs.push_back(state.contains("exp_avg") ? state.at("exp_avg").clone() : torch::zeros_like(param));
  }
  return out;
}

// The parameters and optimizer state of one model after a step, against Python's: exactly, or
// for a non-fused Adam/AdamW that stepped, exp_avg and parameters within adam_step_bound().
void expect_model_matches(torch::nn::Sequential& model, torch::optim::Optimizer& optimizer, const json& optimizer_spec,
                          const json& want_params, const json& want_states, const StepBefore* bounded,
                          const std::string& which) {
  const auto params = model->parameters();
  for (std::size_t p = 0; p < params.size(); ++p) {
    const auto where = which + " param " + std::to_string(p);
    const json& want_state = want_states.at(p);
    const auto got_state = state_of(optimizer, params[p]);
    EXPECT_EQ(got_state.size(), want_state.size()) << "optimizer state keys of " << where;
    std::optional<AdamStepBound> bound;
    if (bounded != nullptr) {
      bound = adam_step_bound(optimizer_spec, bounded->exp_avgs[p], params[p].grad(), bounded->params[p],
                              want_params.at(p), want_state);
      expect_within(params[p], want_params.at(p), bound->param, where);
    } else {
      expect_close(params[p], want_params.at(p), where, kExact);
    }
    for (const auto& [key, value] : got_state) {
      ASSERT_TRUE(want_state.contains(key)) << key << " of " << where;
      if (bound && key == "exp_avg") {
        expect_within(value, want_state.at(key), bound->exp_avg, key + " of " + where);
      } else {
        expect_close(value, want_state.at(key), key + " of " + where, kExact);
      }
    }
  }
}

std::vector<torch::Tensor> losses_of(std::vector<torch::nn::Sequential>& models, const torch::Tensor& inputs,
                                     const torch::Tensor& targets) {
  if (models.size() == 1) {
    return {torch::mse_loss(models[0]->forward(inputs), targets)};
  }
  const auto out0 = models[0]->forward(inputs);
  const auto out1 = models[1]->forward(inputs);
  return {torch::mse_loss(out0 + out1, targets), torch::mse_loss(out0 - out1, targets)};
}

void inject(std::vector<torch::nn::Sequential>& models, const json& spec, int64_t step, int64_t micro) {
  torch::NoGradGuard no_grad;
  for (const auto& item : spec.at("inject")) {
    if (item.at("step") == step && item.at("micro") == micro) {
      auto param = models.at(item.at("model"))->parameters().at(item.at("param"));
      param.mutable_grad().view(-1)[item.at("index").get<int64_t>()] = decode(json::array({item.at("value")}))[0];
    }
  }
}

class GradScalerConformance : public testing::TestWithParam<const char*> {};

TEST_P(GradScalerConformance, MatchesPythonStepByStep) {
  torch::set_num_threads(1);               // as the reference: the same reduction order
  const json spec = scenario(GetParam());  // a copy: g++ 13 flags a kept reference (-Wdangling-reference)
  const json& dims = reference().at("dims");
  const int64_t batch = reference().at("batch");
  std::vector<torch::nn::Sequential> models;
  std::vector<std::unique_ptr<torch::optim::Optimizer>> optimizers;
  for (std::size_t m = 0; m < spec.at("weights").size(); ++m) {
    models.push_back(make_model(spec.at("weights")[m], dims));
    optimizers.push_back(make_optimizer(spec.at("optimizers")[m], models.back()->parameters()));
  }
  const json& scaler_spec = spec.at("scaler");
  ampbench::amp::GradScaler scaler(c10::DeviceType::CPU, {.init_scale = scaler_spec.at("init_scale"),
                                                          .growth_factor = scaler_spec.at("growth_factor"),
                                                          .backoff_factor = scaler_spec.at("backoff_factor"),
                                                          .growth_interval = scaler_spec.at("growth_interval")});
  const int64_t micro_batches = spec.at("micro_batches");
  const json& optimizer_specs = spec.at("optimizers");

  for (int64_t step = 0; step < spec.at("steps").get<int64_t>(); ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const json& expected = spec.at("expected").at("per_step")[step];
    for (std::size_t m = 0; m < models.size() && step > 0; ++m) {
      if (!same_computation(optimizer_specs[m])) {
        const json& before = spec.at("expected").at("per_step")[step - 1];
        start_from_python(models[m], *optimizers[m], optimizer_specs[m], before.at("params")[m],
                          before.at("optimizer_state")[m]);
      }
    }
    for (auto& optimizer : optimizers) {
      optimizer->zero_grad(/*set_to_none=*/true);
    }
    std::vector<double> step_losses;
    for (int64_t micro = 0; micro < micro_batches; ++micro) {
      const auto inputs = decode(spec.at("inputs")[step][micro]).reshape({batch, dims[0]});
      const auto targets = decode(spec.at("targets")[step][micro]).reshape({batch, dims[2]});
      auto losses = losses_of(models, inputs, targets);
      for (std::size_t i = 0; i < losses.size(); ++i) {
        losses[i] = losses[i] / static_cast<double>(micro_batches);
        scaler.scale(losses[i]).backward({}, /*retain_graph=*/i + 1 < losses.size());
        step_losses.push_back(losses[i].item<double>());
      }
      inject(models, spec, step, micro);
    }
    if (spec.at("explicit_unscale").get<bool>()) {
      scaler.unscale_(*optimizers[0]);
    }
    if (!spec.at("clip_max_norm").is_null()) {
      torch::nn::utils::clip_grad_norm_(models[0]->parameters(), spec.at("clip_max_norm"));
    }
    std::vector<StepBefore> before;
    for (std::size_t m = 0; m < models.size(); ++m) {
      before.push_back(snapshot(models[m], *optimizers[m]));
    }
    for (std::size_t o = 0; o < optimizers.size(); ++o) {
      const auto outcome = scaler.step(*optimizers[o]);
      if (optimizer_specs[o].value("fused", false)) {
        EXPECT_EQ(outcome, StepOutcome::kDecidedOnDevice) << "optimizer " << o;  // skips: see telemetry below
      } else {
        EXPECT_EQ(outcome == StepOutcome::kSkipped, expected.at("skipped")[o].get<bool>()) << "optimizer " << o;
      }
    }
    for (std::size_t m = 0; m < models.size(); ++m) {
      const auto params = models[m]->parameters();
      for (std::size_t p = 0; p < params.size(); ++p) {
        expect_close(params[p].grad(), expected.at("grads")[m][p],
                     "grad of model " + std::to_string(m) + " param " + std::to_string(p), kExact);
      }
      // A skipped step changes nothing, so it matches exactly whatever the optimizer.
      const bool bounded = !same_computation(optimizer_specs[m]) && !expected.at("skipped")[m].get<bool>();
      expect_model_matches(models[m], *optimizers[m], optimizer_specs[m], expected.at("params")[m],
                           expected.at("optimizer_state")[m], bounded ? &before[m] : nullptr,
                           "model " + std::to_string(m));
    }
    const auto set_scale = spec.at("set_scale").find(std::to_string(step));
    if (set_scale != spec.at("set_scale").end()) {
      scaler.update(set_scale->get<double>());
    } else {
      scaler.update();
    }
    expect_close(torch::tensor(step_losses, torch::kDouble), expected.at("losses"), "losses", kExact);
    EXPECT_EQ(scaler.get_scale(), expected.at("scale").get<double>());
    EXPECT_EQ(scaler.get_growth_tracker(), expected.at("growth_tracker").get<int64_t>());
  }

  // The parameters and optimizer state after the last step were compared in the loop above.
  const json& final_state = spec.at("expected");
  const auto state = scaler.state_dict();
  const json& want = final_state.at("state_dict");
  EXPECT_EQ(state.at("scale").toDouble(), want.at("scale").get<double>());
  EXPECT_EQ(state.at("growth_factor").toDouble(), want.at("growth_factor").get<double>());
  EXPECT_EQ(state.at("backoff_factor").toDouble(), want.at("backoff_factor").get<double>());
  EXPECT_EQ(state.at("growth_interval").toInt(), want.at("growth_interval").get<int64_t>());
  EXPECT_EQ(state.at("_growth_tracker").toInt(), want.at("_growth_tracker").get<int64_t>());

  // Telemetry: one record per update(), the scale used that iteration and whether it skipped.
  const auto telemetry = scaler.telemetry();
  ASSERT_EQ(telemetry.size(), spec.at("steps").get<std::size_t>());
  double scale_used = scaler_spec.at("init_scale");
  for (std::size_t step = 0; step < telemetry.size(); ++step) {
    const json& expected = final_state.at("per_step")[step];
    bool any_skipped = false;
    for (const auto& skipped : expected.at("skipped")) {
      any_skipped = any_skipped || skipped.get<bool>();
    }
    EXPECT_EQ(telemetry[step].scale, scale_used) << "telemetry step " << step;
    EXPECT_EQ(telemetry[step].skipped, any_skipped) << "telemetry step " << step;
    scale_used = expected.at("scale");
  }
}

std::string scenario_name(const testing::TestParamInfo<const char*>& param_info) { return param_info.param; }

INSTANTIATE_TEST_SUITE_P(Reference, GradScalerConformance, testing::ValuesIn(kScenarios), scenario_name);

// Scenario names are listed above because tests are discovered at build time, before the
// reference exists; this catches a scenario added in Python but not here.
TEST(GradScalerConformanceReference, EveryPythonScenarioIsReplayed) {
  ampbench::amp::testing::expect_replays_every_scenario(
      reference(), std::set<std::string>(std::begin(kScenarios), std::end(kScenarios)));
}

}  // namespace
