// The scenarios of PyTorch's own GradScaler tests (test_torch.py / test_cuda.py grad scaling),
// run on CPU: each scaled run is compared with an unscaled control run. Scales are powers of two
// and no gradient overflows except the injected ones, so scaling and unscaling are exact and the
// two runs must agree bit for bit, with the control simply skipping the iteration where the
// scaled run saw an inf.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <limits>

#include "ampbench/amp/grad_scaler.h"

namespace {

using ampbench::amp::GradScaler;
using ampbench::amp::GradScalerOptions;
using ampbench::amp::StepOutcome;
constexpr int kIterations = 8;
constexpr int kSkipIteration = 3;  // the scaled run gets an inf gradient here
constexpr float kInf = std::numeric_limits<float>::infinity();

torch::nn::Sequential make_model(int seed) {
  torch::manual_seed(seed);
  return torch::nn::Sequential(torch::nn::Linear(4, 8), torch::nn::Tanh(), torch::nn::Linear(8, 2));
}

struct Batch {
  torch::Tensor inputs, targets;
};

std::vector<Batch> make_batches(int count) {
  torch::manual_seed(100);
  std::vector<Batch> batches;
  for (int i = 0; i < count; ++i) {
    batches.push_back({torch::randn({6, 4}), torch::randn({6, 2})});
  }
  return batches;
}

// One training setup: models, their SGD optimizers (with momentum, so a wrongly taken step
// would show in every later step), and the variant's iteration body.
struct TrainingRun {
  std::vector<torch::nn::Sequential> models;
  std::vector<std::unique_ptr<torch::optim::SGD>> optimizers;

  explicit TrainingRun(int model_count) {
    for (int m = 0; m < model_count; ++m) {
      models.push_back(make_model(m + 1));
      optimizers.push_back(std::make_unique<torch::optim::SGD>(models.back()->parameters(),
                                                               torch::optim::SGDOptions(0.1).momentum(0.9)));
    }
  }
  std::vector<torch::Tensor> parameters() const {
    std::vector<torch::Tensor> all;
    for (const auto& model : models) {
      for (const auto& p : model->parameters()) {
        all.push_back(p.detach().clone());
      }
    }
    return all;
  }
};

void poison_gradient(torch::nn::Sequential& model, float value) {
  torch::NoGradGuard no_grad;
  model->parameters()[0].mutable_grad().view(-1)[0] = value;
}

void expect_same_parameters(const TrainingRun& got_run, const TrainingRun& want_run) {
  const auto got = got_run.parameters();
  const auto want = want_run.parameters();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t p = 0; p < got.size(); ++p) {
    EXPECT_TRUE(torch::equal(got[p], want[p])) << "parameter " << p << "\n" << got[p] - want[p];
  }
}

// Runs kIterations of `body` with a scaler (scaled run: an inf or NaN is injected at
// kSkipIteration) and without (control run: told `poison` too, it leaves out the steps that the
// scaler must skip), and checks both end with the same parameters.
using Body = std::function<void(TrainingRun&, GradScaler*, const Batch&, bool poison)>;

void expect_scaled_matches_control(int model_count, const Body& body,
                                   GradScalerOptions options = {.init_scale = 128.0, .growth_interval = 2}) {
  const auto batches = make_batches(kIterations);
  TrainingRun scaled(model_count);
  TrainingRun control(model_count);
  GradScaler scaler(c10::DeviceType::CPU, options);
  for (int i = 0; i < kIterations; ++i) {
    body(scaled, &scaler, batches[i], i == kSkipIteration);
    body(control, nullptr, batches[i], i == kSkipIteration);
  }
  expect_same_parameters(scaled, control);
}

torch::Tensor maybe_scale(GradScaler* scaler, const torch::Tensor& loss) { return scaler ? scaler->scale(loss) : loss; }

// Scaled: the scaler decides. Control: every optimizer steps unless this is the poisoned
// iteration.
void step_all(TrainingRun& run, GradScaler* scaler, bool poison) {
  for (auto& optimizer : run.optimizers) {
    if (scaler) {
      EXPECT_EQ(scaler->step(*optimizer), poison ? StepOutcome::kSkipped : StepOutcome::kStepped);
    } else if (!poison) {
      optimizer->step();
    }
  }
  if (scaler) {
    scaler->update();
  }
}

void plain_iteration(TrainingRun& run, GradScaler* scaler, const Batch& batch, bool poison) {
  run.optimizers[0]->zero_grad();
  const auto loss = torch::mse_loss(run.models[0]->forward(batch.inputs), batch.targets);
  maybe_scale(scaler, loss).backward();
  if (poison && scaler) {
    poison_gradient(run.models[0], kInf);
  }
  step_all(run, scaler, poison);
}

TEST(GradScaler, ScaledTrainingMatchesUnscaledControl) { expect_scaled_matches_control(1, plain_iteration); }

TEST(GradScaler, ClippingAfterUnscaleMatchesControl) {
  expect_scaled_matches_control(1, [](TrainingRun& run, GradScaler* scaler, const Batch& batch, bool poison) {
    run.optimizers[0]->zero_grad();
    const auto loss = torch::mse_loss(run.models[0]->forward(batch.inputs), batch.targets);
    maybe_scale(scaler, loss).backward();
    if (poison && scaler) {
      poison_gradient(run.models[0], kInf);
    }
    if (scaler) {
      scaler->unscale_(*run.optimizers[0]);
    }
    // max_norm small enough that every iteration clips.
    torch::nn::utils::clip_grad_norm_(run.models[0]->parameters(), 0.05);
    step_all(run, scaler, poison);
  });
}

TEST(GradScaler, GradientAccumulationMatchesControl) {
  expect_scaled_matches_control(1, [](TrainingRun& run, GradScaler* scaler, const Batch& batch, bool poison) {
    constexpr int kMicroBatches = 3;
    run.optimizers[0]->zero_grad();
    for (int micro = 0; micro < kMicroBatches; ++micro) {
      const auto rows = torch::indexing::Slice(2 * micro, 2 * micro + 2);
      const auto loss =
          torch::mse_loss(run.models[0]->forward(batch.inputs.index({rows})), batch.targets.index({rows})) /
          kMicroBatches;
      maybe_scale(scaler, loss).backward();
    }
    if (poison && scaler) {
      poison_gradient(run.models[0], kInf);
    }
    step_all(run, scaler, poison);
  });
}

TEST(GradScaler, TwoModelsOptimizersAndLossesMatchControl) {
  expect_scaled_matches_control(2, [](TrainingRun& run, GradScaler* scaler, const Batch& batch, bool poison) {
    for (auto& optimizer : run.optimizers) {
      optimizer->zero_grad();
    }
    const auto out0 = run.models[0]->forward(batch.inputs);
    const auto out1 = run.models[1]->forward(batch.inputs);
    const auto loss0 = torch::mse_loss(out0 + out1, batch.targets);
    const auto loss1 = torch::mse_loss(out0 - out1, batch.targets);
    maybe_scale(scaler, loss0).backward({}, /*retain_graph=*/true);
    maybe_scale(scaler, loss1).backward();
    if (poison && scaler) {
      poison_gradient(run.models[1], std::nanf(""));  // NaN in the second model only
    }
    if (scaler) {
      scaler->unscale_(*run.optimizers[0]);
      EXPECT_EQ(scaler->step(*run.optimizers[0]), StepOutcome::kStepped);  // its gradients are clean: it steps
      EXPECT_EQ(scaler->step(*run.optimizers[1]), poison ? StepOutcome::kSkipped : StepOutcome::kStepped);
      scaler->update();
    } else {
      run.optimizers[0]->step();
      if (!poison) {
        run.optimizers[1]->step();
      }
    }
  });
}

TEST(GradScaler, GrowsAfterGrowthIntervalAndBacksOffOnInfAndNan) {
  const auto batches = make_batches(8);
  TrainingRun run(1);
  GradScaler scaler(c10::DeviceType::CPU, {.init_scale = 4.0, .growth_interval = 3});
  EXPECT_EQ(scaler.get_scale(), 4.0);  // before the first scale(): the initial scale, no sync
  const auto iterate = [&](int i, float poison) {
    run.optimizers[0]->zero_grad();
    const auto loss = torch::mse_loss(run.models[0]->forward(batches[i].inputs), batches[i].targets);
    scaler.scale(loss).backward();
    if (poison != 0.0f) {
      poison_gradient(run.models[0], poison);
    }
    const auto before = run.parameters();
    const bool stepped = scaler.step(*run.optimizers[0]) == StepOutcome::kStepped;
    EXPECT_EQ(stepped, poison == 0.0f);
    if (!stepped) {
      EXPECT_TRUE(torch::equal(before[0], run.parameters()[0])) << "a skipped step moved params";
    }
    scaler.update();
  };
  const double want_scale[] = {4, 4, 8, 8, 4, 2, 2, 2};
  const std::int64_t want_tracker[] = {1, 2, 0, 1, 0, 0, 1, 2};
  const float poison[] = {0, 0, 0, 0, kInf, std::nanf(""), 0, 0};
  for (int i = 0; i < 8; ++i) {
    iterate(i, poison[i]);
    EXPECT_EQ(scaler.get_scale(), want_scale[i]) << "iteration " << i;
    EXPECT_EQ(scaler.get_growth_tracker(), want_tracker[i]) << "iteration " << i;
  }
  const auto telemetry = scaler.telemetry();
  ASSERT_EQ(telemetry.size(), 8u);
  EXPECT_EQ(telemetry[4].scale, 8.0);
  EXPECT_TRUE(telemetry[4].skipped);
  EXPECT_TRUE(telemetry[5].skipped);
  EXPECT_FALSE(telemetry[6].skipped);
  scaler.clear_telemetry();
  EXPECT_TRUE(scaler.telemetry().empty());
}

TEST(GradScaler, StateDictRoundTrip) {
  GradScaler a(c10::DeviceType::CPU,
               {.init_scale = 3.0, .growth_factor = 4.0, .backoff_factor = 0.25, .growth_interval = 2});
  TrainingRun run(1);
  const auto batch = make_batches(1)[0];
  a.scale(torch::mse_loss(run.models[0]->forward(batch.inputs), batch.targets)).backward();
  ASSERT_EQ(a.step(*run.optimizers[0]), StepOutcome::kStepped);
  a.update();
  const auto state = a.state_dict();
  EXPECT_EQ(state.at("scale").toDouble(), 3.0);
  EXPECT_EQ(state.at("growth_factor").toDouble(), 4.0);
  EXPECT_EQ(state.at("backoff_factor").toDouble(), 0.25);
  EXPECT_EQ(state.at("growth_interval").toInt(), 2);
  EXPECT_EQ(state.at("_growth_tracker").toInt(), 1);

  // Loaded before the first scale() (lazy path) and after it (the device tensors are refilled).
  for (const bool initialised : {false, true}) {
    GradScaler b(c10::DeviceType::CPU,
                 {.init_scale = 2.0, .growth_factor = 3.0, .backoff_factor = 0.75, .growth_interval = 5});
    if (initialised) {
      (void)b.scale(torch::ones({}));
    }
    b.load_state_dict(state);
    EXPECT_EQ(b.get_scale(), 3.0);
    EXPECT_EQ(b.get_growth_factor(), 4.0);
    EXPECT_EQ(b.get_backoff_factor(), 0.25);
    EXPECT_EQ(b.get_growth_interval(), 2);
    EXPECT_EQ(b.get_growth_tracker(), 1);
    EXPECT_EQ(b.scale(torch::full({}, 2.0)).item<double>(), 6.0);
  }
}

TEST(GradScaler, DisabledIsAnExactPassThrough) {
  GradScaler scaler(c10::DeviceType::CPU, {.enabled = false});
  EXPECT_FALSE(scaler.is_enabled());
  const auto loss = torch::full({}, 2.0, torch::kHalf);
  EXPECT_TRUE(scaler.scale(loss).is_same(loss));
  const auto outputs = std::vector<torch::Tensor>{loss, torch::ones({2}, torch::kInt)};
  const auto scaled = scaler.scale(outputs);
  EXPECT_TRUE(scaled[0].is_same(outputs[0]) && scaled[1].is_same(outputs[1]));
  EXPECT_EQ(scaler.get_scale(), 1.0);
  EXPECT_EQ(scaler.get_growth_tracker(), 0);
  EXPECT_EQ(scaler.state_dict().size(), 0u);
  scaler.load_state_dict(scaler.state_dict());  // no-op, even though empty

  const auto batches = make_batches(kIterations);
  TrainingRun through_scaler(1);
  TrainingRun plain(1);
  for (const auto& batch : batches) {
    plain_iteration(through_scaler, &scaler, batch, false);
    plain_iteration(plain, nullptr, batch, false);
  }
  expect_same_parameters(through_scaler, plain);
  EXPECT_TRUE(scaler.telemetry().empty());
  EXPECT_EQ(scaler.host_syncs(), 0);
}

TEST(GradScaler, UpdateWithNewScale) {
  GradScaler scaler(c10::DeviceType::CPU);
  (void)scaler.scale(torch::ones({}));
  scaler.update(512.0);
  EXPECT_EQ(scaler.get_scale(), 512.0);
  scaler.update(torch::full({1}, 64.0));
  EXPECT_EQ(scaler.get_scale(), 64.0);
  EXPECT_THROW(scaler.update(torch::ones({2})), c10::ValueError);
  EXPECT_THROW(scaler.update(torch::ones({}, torch::requires_grad())), c10::ValueError);
  ASSERT_EQ(scaler.telemetry().size(), 2u);
  EXPECT_EQ(scaler.telemetry()[1].scale, 512.0);
}

TEST(GradScaler, TelemetryKeepsLongHistoriesInOneSync) {
  GradScaler scaler(c10::DeviceType::CPU, {.init_scale = 0.5});
  (void)scaler.scale(torch::ones({}));
  constexpr int kUpdates = 9000;  // spans several device buffers
  for (int i = 1; i <= kUpdates; ++i) {
    scaler.update(static_cast<double>(i));
  }
  const auto syncs = scaler.host_syncs();
  const auto records = scaler.telemetry();
  EXPECT_EQ(scaler.host_syncs(), syncs + 1);
  ASSERT_EQ(records.size(), static_cast<std::size_t>(kUpdates));
  EXPECT_EQ(records[0].scale, 0.5);  // the scale each iteration ran with, before update()
  for (int i = 1; i < kUpdates; ++i) {
    ASSERT_EQ(records[i].scale, static_cast<double>(i)) << "record " << i;
    ASSERT_FALSE(records[i].skipped);
  }
}

TEST(GradScaler, ScaleKeepsTheOutputDtype) {
  GradScaler scaler(c10::DeviceType::CPU, {.init_scale = 8.0});
  const auto half = scaler.scale(torch::full({3}, 0.5, torch::kHalf));
  EXPECT_EQ(half.scalar_type(), torch::kHalf);  // a 0-dim fp32 scale does not promote
  EXPECT_TRUE(torch::equal(half, torch::full({3}, 4.0, torch::kHalf)));
  const auto list = scaler.scale({torch::ones({2}), torch::ones({2}, torch::kBFloat16)});
  EXPECT_EQ(list[1].scalar_type(), torch::kBFloat16);
  EXPECT_EQ(list[0][1].item<double>(), 8.0);
}

TEST(GradScaler, WorksOverParamGroupsAndSparseGradients) {
  torch::manual_seed(0);
  torch::nn::Embedding embedding(torch::nn::EmbeddingOptions(10, 3).sparse(true));
  torch::nn::Linear head(3, 1);
  torch::optim::SGD optimizer({torch::optim::OptimizerParamGroup(embedding->parameters()),
                               torch::optim::OptimizerParamGroup(head->parameters())},
                              torch::optim::SGDOptions(0.1));
  GradScaler scaler(c10::DeviceType::CPU, {.init_scale = 16.0});
  const auto loss = head(embedding(torch::tensor({1, 4, 4}))).sum();
  scaler.scale(loss).backward();
  const auto head_grad_scaled = head->weight.grad().clone();
  scaler.unscale_(optimizer);
  EXPECT_TRUE(embedding->weight.grad().is_sparse());
  EXPECT_TRUE(torch::equal(head->weight.grad() * 16.0, head_grad_scaled));
  EXPECT_EQ(scaler.step(optimizer), StepOutcome::kStepped);
  scaler.update();
}

}  // namespace
