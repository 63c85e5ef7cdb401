// The workloads' contracts: deterministic data, sizes and FLOPs as documented, clear errors.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "ampbench/workloads/preset.h"
#include "ampbench/workloads/registry.h"

namespace {

using ampbench::workloads::make_workload;
using ampbench::workloads::parse_preset;
using ampbench::workloads::Preset;
using ampbench::workloads::WorkloadOptions;

WorkloadOptions seed_preset() {
  WorkloadOptions options;
  options.preset = Preset::kSeed;
  return options;
}

TEST(Workloads, TheSameIndexGivesTheSameBatchAndTheSameInitialWeights) {
  for (const auto& info : ampbench::workloads::known_workloads()) {
    auto first = make_workload(info.name, seed_preset());
    auto second = make_workload(info.name, seed_preset());
    EXPECT_TRUE(torch::equal(first->make_batch(3).input, second->make_batch(3).input)) << info.name;
    EXPECT_TRUE(torch::equal(first->make_batch(3).target, second->make_batch(3).target)) << info.name;
    EXPECT_FALSE(torch::equal(first->make_batch(3).input, first->make_batch(4).input)) << info.name;
    const auto a = first->module().parameters();
    const auto b = second->module().parameters();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << info.name;
  }
}

TEST(Workloads, SeedPresetsAreTheTutorialsSizes) {
  auto net = make_workload("simplenet", seed_preset());
  EXPECT_EQ(net->samples_per_step(), 100);
  EXPECT_DOUBLE_EQ(net->flops_per_step().value(), 3.0 * 2 * 100 * 10 * 1);
  auto cnn = make_workload("simplecnn", seed_preset());
  EXPECT_EQ(cnn->samples_per_step(), 64);
  EXPECT_NE(cnn->describe().find("fc 4096->10"), std::string::npos) << cnn->describe();  // 64*8*8, not 64*16*16
  auto block = make_workload("transformer", seed_preset());
  EXPECT_EQ(block->tokens_per_step(), 8 * 128);
}

TEST(Workloads, UnknownNamesAndBadBatchesAreClearErrors) {
  EXPECT_THROW((void)make_workload("resnet", seed_preset()), std::invalid_argument);
  EXPECT_THROW((void)parse_preset("huge"), std::invalid_argument);
  auto options = seed_preset();
  options.batch = 0;
  EXPECT_THROW((void)make_workload("simplecnn", options), std::invalid_argument);
}

TEST(Presets, EveryNameParsesBackAndAnUnknownOneListsTheKnown) {
  for (const auto& info : ampbench::workloads::known_presets()) {
    EXPECT_EQ(parse_preset(to_string(info.preset)), info.preset) << info.name;
  }
  EXPECT_EQ(to_string(Preset::kDefault), "default");
  try {
    (void)parse_preset("Seed");
    FAIL() << "a preset name is matched exactly";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "unknown preset 'Seed' (seed, default, large or gpu)");
  }
}

}  // namespace
