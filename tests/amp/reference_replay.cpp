#include "reference_replay.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>

#include "ampbench/amp/fused_optimizers.h"

namespace ampbench::amp::testing {

using nlohmann::json;

const json& reference_document(const std::string& path) {
  static std::map<std::string, json> documents;
  auto it = documents.find(path);
  if (it == documents.end()) {
    std::ifstream in(path);
    if (!in) {
      throw std::runtime_error("cannot read " + path + " (written by its reference fixture test)");
    }
    it = documents.emplace(path, json::parse(in)).first;
  }
  return it->second;
}

const json& reference_scenario(const json& document, const std::string& name) {
  for (const auto& spec : document.at("scenarios")) {
    if (spec.at("name") == name) {
      return spec;
    }
  }
  throw std::runtime_error("scenario '" + name + "' is not in the reference JSON");
}

void expect_replays_every_scenario(const json& document, const std::set<std::string>& replayed) {
  std::set<std::string> in_reference;
  for (const auto& spec : document.at("scenarios")) {
    in_reference.insert(spec.at("name").get<std::string>());
  }
  EXPECT_EQ(replayed, in_reference);
  const auto libtorch = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                        std::to_string(TORCH_VERSION_PATCH);
  EXPECT_EQ(document.at("torch_version").get<std::string>().substr(0, libtorch.size()), libtorch)
      << "the reference must come from the same torch as the LibTorch under test";
}

torch::Tensor decode(const json& values) {
  std::vector<float> out;
  for (const auto& value : values) {
    if (value.is_string()) {
      const auto text = value.get<std::string>();
      const float inf = std::numeric_limits<float>::infinity();
      out.push_back(text == "inf" ? inf : text == "-inf" ? -inf : std::nanf(""));
    } else {
      out.push_back(value.get<float>());
    }
  }
  return torch::tensor(out, torch::kFloat);
}

void expect_close(const torch::Tensor& actual, const json& expected, const std::string& what, Tolerance tolerance) {
  const auto want = decode(expected);
  const auto got = actual.detach().reshape(-1).to(torch::kFloat);
  ASSERT_EQ(got.numel(), want.numel()) << what;
  const bool close = at::isclose(got, want, tolerance.rtol, tolerance.atol, /*equal_nan=*/true).all().item<bool>();
  EXPECT_TRUE(close) << what << ": max |diff| " << (got - want).abs().nan_to_num(0, 0, 0).max().item<double>()
                     << "\n got " << got << "\n want " << want;
}

void expect_within(const torch::Tensor& actual, const json& expected, const torch::Tensor& bound,
                   const std::string& what) {
  const auto want = decode(expected).to(torch::kDouble);
  const auto got = actual.detach().reshape(-1).to(torch::kDouble);
  ASSERT_EQ(got.numel(), want.numel()) << what;
  const auto limit = bound.detach().reshape(-1).to(torch::kDouble);
  const auto diff = (got - want).abs();
  const bool same_nan = at::equal(got.isnan(), want.isnan());
  const bool within = (diff <= limit).logical_or(got.isnan()).all().item<bool>();
  EXPECT_TRUE(same_nan && within) << what << ": largest |diff| - bound "
                                  << (diff - limit).nan_to_num(0, 0, 0).max().item<double>() << "\n got " << got
                                  << "\n want " << want << "\n bound " << limit;
}

torch::nn::Sequential make_model(const json& weights, const json& dims) {
  const auto in = dims[0].get<int64_t>(), hidden = dims[1].get<int64_t>(), out = dims[2].get<int64_t>();
  torch::nn::Sequential model(torch::nn::Linear(in, hidden), torch::nn::Tanh(), torch::nn::Linear(hidden, out));
  torch::NoGradGuard no_grad;
  auto params = model->parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    params[i].copy_(decode(weights.at(i)).reshape(params[i].sizes()));
  }
  return model;
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const json& spec, std::vector<torch::Tensor> params) {
  const auto type = spec.at("type").get<std::string>();
  const bool fused = spec.value("fused", false);
  const double lr = spec.at("lr");
  if (type == "sgd") {
    const auto options = torch::optim::SGDOptions(lr)
                             .momentum(spec.at("momentum"))
                             .weight_decay(spec.at("weight_decay"))
                             .nesterov(spec.at("nesterov"));
    if (fused) return std::make_unique<FusedSGD>(params, options);
    return std::make_unique<torch::optim::SGD>(params, options);
  }
  const auto configure = [&](auto options) {
    return options.betas(std::make_tuple(spec.at("beta1").get<double>(), spec.at("beta2").get<double>()))
        .eps(spec.at("eps"))
        .weight_decay(spec.at("weight_decay"))
        .amsgrad(spec.at("amsgrad"));
  };
  if (type == "adam") {
    const auto options = configure(torch::optim::AdamOptions(lr));
    if (fused) return std::make_unique<FusedAdam>(params, options);
    return std::make_unique<torch::optim::Adam>(params, options);
  }
  if (type != "adamw") {
    throw std::runtime_error("reference optimizer type '" + type + "' is not one of sgd, adam, adamw");
  }
  const auto options = configure(torch::optim::AdamWOptions(lr));
  if (fused) return std::make_unique<FusedAdamW>(params, options);
  return std::make_unique<torch::optim::AdamW>(params, options);
}

}  // namespace ampbench::amp::testing
