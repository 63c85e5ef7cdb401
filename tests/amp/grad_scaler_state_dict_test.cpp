// A GradScaler state_dict saved by Python (torch.save) loads into ampbench's GradScaler through
// torch::pickle_load, which hands it over as an untyped Dict<Any, Any>.
#include <ampbench/amp/grad_scaler.h>
#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <vector>

namespace {

using ampbench::amp::GradScaler;

nlohmann::json reference() {
  std::ifstream in(AMPBENCH_GRAD_SCALER_STATE_DICT_JSON);
  return nlohmann::json::parse(in);
}

c10::IValue load_pickle(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return torch::pickle_load(bytes);
}

TEST(GradScalerStateDict, APythonSavedStateDictLoadsAsAnUntypedDict) {
  const auto expected = reference();
  const auto loaded = load_pickle(expected.at("pt").get<std::string>());
  ASSERT_TRUE(loaded.isGenericDict());
  GradScaler scaler(c10::DeviceType::CPU);
  scaler.load_state_dict(loaded.toGenericDict());
  const auto& state = expected.at("state");
  EXPECT_EQ(scaler.get_scale(), state.at("scale").get<double>());
  EXPECT_EQ(scaler.get_growth_factor(), state.at("growth_factor").get<double>());
  EXPECT_EQ(scaler.get_backoff_factor(), state.at("backoff_factor").get<double>());
  EXPECT_EQ(scaler.get_growth_interval(), state.at("growth_interval").get<std::int64_t>());
  EXPECT_EQ(scaler.get_growth_tracker(), state.at("_growth_tracker").get<std::int64_t>());
  // And it goes on from there as Python's would: the next scale() multiplies by the loaded scale.
  EXPECT_EQ(scaler.scale(torch::full({}, 2.0)).item<double>(), 2.0 * state.at("scale").get<double>());
}

TEST(GradScalerStateDict, AnUntypedDictWithANonStringKeyIsRefusedNamingTheKeyType) {
  c10::impl::GenericDict state(c10::AnyType::get(), c10::AnyType::get());
  state.insert(c10::IValue(std::string("scale")), c10::IValue(2.0));
  state.insert(c10::IValue(std::int64_t{7}), c10::IValue(1.0));
  GradScaler scaler(c10::DeviceType::CPU, {.init_scale = 8.0});
  try {
    scaler.load_state_dict(state);
    FAIL() << "a non-string key was accepted";
  } catch (const c10::TypeError& error) {
    EXPECT_NE(std::string(error.what()).find("keys must be strings, got a key of type Int"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(scaler.get_scale(), 8.0);  // unchanged
}

// torch::save / torch::load, as with torch::optim's optimizers: the state goes through a file.
TEST(GradScalerStateDict, TorchSaveAndLoadRoundTripTheState) {
  const auto path = std::string(AMPBENCH_GRAD_SCALER_STATE_DICT_JSON) + ".archive.pt";
  GradScaler saved(c10::DeviceType::CPU, {.init_scale = 64.0, .growth_factor = 3.0, .growth_interval = 7});
  (void)saved.scale(torch::ones({}));
  saved.update(16.0);
  torch::save(saved, path);
  GradScaler loaded(c10::DeviceType::CPU);
  torch::load(loaded, path);
  EXPECT_EQ(loaded.get_scale(), 16.0);
  EXPECT_EQ(loaded.get_growth_factor(), 3.0);
  EXPECT_EQ(loaded.get_growth_interval(), 7);
  EXPECT_EQ(loaded.get_growth_tracker(), saved.get_growth_tracker());
  // An archive without the scaler's keys is refused like an empty state_dict.
  GradScaler disabled(c10::DeviceType::CPU, {.enabled = false});
  torch::save(disabled, path);
  EXPECT_THROW(torch::load(loaded, path), c10::ValueError);
  EXPECT_EQ(loaded.get_scale(), 16.0);
}

}  // namespace
