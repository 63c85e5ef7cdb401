// A bare "cuda" becomes the current CUDA device before anything reads per-device state; every
// other device passes through. Pure: the current index is an argument.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "machine/device_selection.h"

namespace ampbench::harness {
namespace {

TEST(DeviceSelection, BareCudaBecomesTheCurrentDevice) {
  EXPECT_EQ(with_explicit_index(c10::Device("cuda"), 0), c10::Device("cuda:0"));
  EXPECT_EQ(with_explicit_index(c10::Device("cuda"), 3), c10::Device("cuda:3"));
  EXPECT_EQ(with_explicit_index(c10::Device("cuda"), 3).str(), "cuda:3");
}

TEST(DeviceSelection, AnExplicitIndexIsKept) {
  EXPECT_EQ(with_explicit_index(c10::Device("cuda:1"), 0), c10::Device("cuda:1"));
  EXPECT_EQ(with_explicit_index(c10::Device("cuda:0"), 2), c10::Device("cuda:0"));
}

TEST(DeviceSelection, TheCpuIsLeftAlone) {
  const c10::Device cpu = with_explicit_index(c10::Device("cpu"), 2);
  EXPECT_TRUE(cpu.is_cpu());
  EXPECT_FALSE(cpu.has_index());
  EXPECT_TRUE(resolve_device(c10::Device("cpu")).is_cpu());  // asks no GPU anything
}

TEST(DeviceSelection, NoCurrentDeviceIsAnErrorNamingTheDevice) {
  try {
    static_cast<void>(with_explicit_index(c10::Device("cuda"), -1));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("'cuda'"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ampbench::harness
