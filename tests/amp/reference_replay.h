// What the replays of Python references (grad_scaler_conformance_test,
// gradient_penalty_conformance_test) share: reading the reference JSON that
// reference/*.py writes, and rebuilding its model and optimizer in C++.
#pragma once

#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/optimizer.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace ampbench::amp::testing {

struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
};
inline constexpr Tolerance kExact{};

// The reference document at `path` (a CTest fixture writes it), parsed once per path.
[[nodiscard]] const nlohmann::json& reference_document(const std::string& path);
// The scenario called `name` in a reference document; throws naming it when absent.
[[nodiscard]] const nlohmann::json& reference_scenario(const nlohmann::json& document, const std::string& name);
// gtest failures unless the replay covers exactly the document's scenarios (names are listed in
// the test because tests are discovered at build time, before the reference exists) and the
// document comes from the LibTorch version under test.
void expect_replays_every_scenario(const nlohmann::json& document, const std::set<std::string>& replayed);

// JSON numbers, or "inf" / "-inf" / "nan" strings, to a flat float32 tensor.
[[nodiscard]] torch::Tensor decode(const nlohmann::json& values);
// A gtest failure naming `what` unless `actual` equals `expected` within `tolerance` (NaN = NaN).
void expect_close(const torch::Tensor& actual, const nlohmann::json& expected, const std::string& what,
                  Tolerance tolerance);

// A gtest failure naming `what` unless |actual - expected| <= bound element by element (NaN = NaN).
void expect_within(const torch::Tensor& actual, const nlohmann::json& expected, const torch::Tensor& bound,
                   const std::string& what);

// Linear(d0, d1) -> Tanh -> Linear(d1, d2) with the reference's initial weights.
[[nodiscard]] torch::nn::Sequential make_model(const nlohmann::json& weights, const nlohmann::json& dims);
// SGD, Adam or AdamW as the reference spec describes it; with "fused": ampbench's fused ones.
[[nodiscard]] std::unique_ptr<torch::optim::Optimizer> make_optimizer(const nlohmann::json& spec,
                                                                      std::vector<torch::Tensor> params);

}  // namespace ampbench::amp::testing
