// The GPU compute mode as the environment reports it, and the probe on this machine.
#include <gtest/gtest.h>

#include <filesystem>

#include "ampbench/harness/environment_probe.h"

namespace ampbench::harness {
namespace {

TEST(EnvironmentProbe, ComputeModesReadAsNvidiaSmiNamesThem) {
  EXPECT_EQ(compute_mode_name(0), "Default");
  EXPECT_EQ(compute_mode_name(1), "Exclusive Thread");
  EXPECT_EQ(compute_mode_name(2), "Prohibited");
  EXPECT_EQ(compute_mode_name(3), "Exclusive Process");
  EXPECT_EQ(compute_mode_name(9), "unknown (9)");
  EXPECT_EQ(compute_mode_name(std::nullopt), "");
}

TEST(EnvironmentProbe, TheCpuHasNoComputeModeAndEveryGpuHasOne) {
  const auto environment = probe_environment();
  ASSERT_FALSE(environment.devices.empty());
  EXPECT_EQ(environment.devices.front().name, "cpu");
  EXPECT_EQ(environment.devices.front().compute_mode, "");
  for (std::size_t i = 1; i < environment.devices.size(); ++i) {
    EXPECT_FALSE(environment.devices[i].compute_mode.empty()) << environment.devices[i].name;
  }
}

TEST(EnvironmentProbe, TheLibTorchFolderIsTheOneThisProcessLoaded) {
  const auto folder = std::filesystem::path(probe_environment().torch_library);
  EXPECT_TRUE(folder.is_absolute()) << folder;
  EXPECT_TRUE(std::filesystem::exists(folder / "libtorch_cpu.so")) << folder;
}

}  // namespace
}  // namespace ampbench::harness
