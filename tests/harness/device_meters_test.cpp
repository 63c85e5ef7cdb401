// The GPU's and the CPU's meters on a machine without either: NVML's loader fails with its reason,
// every clocks-event reason bit decodes, the energy counter's arithmetic holds across wraps, and
// RAPL reads a powercap tree laid out in a temporary folder (the real one where the kernel has it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "machine/energy_counter.h"
#include "machine/gpu_clock_reasons.h"
#include "machine/nvml_library.h"
#include "machine/rapl_energy.h"

namespace {

namespace fs = std::filesystem;
using namespace ampbench::harness::detail;

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Nvml, WithoutTheDriverTheLoaderSaysWhichLibraryIsMissing) {
  if (fs::exists("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")) GTEST_SKIP() << "this machine has NVML";
  EXPECT_TRUE(contains(error_of([] { NvmlDevice device("00000000:01:00.0"); }), "libnvidia-ml.so.1"));
  const auto missing = error_of([] { NvmlDevice device("00000000:01:00.0", "/nonexistent/libnvml.so"); });
  EXPECT_TRUE(contains(missing, "/nonexistent/libnvml.so")) << missing;
  EXPECT_TRUE(contains(missing, "NVML comes with the NVIDIA driver"));
  const auto wrong = error_of([] { NvmlDevice device("00000000:01:00.0", "libm.so.6"); });
  EXPECT_TRUE(contains(wrong, "no entry point nvmlInit_v2")) << wrong;
}

TEST(Nvml, EveryClocksEventReasonBitHasItsName) {
  const std::vector<std::string> names{"gpu_idle",
                                       "applications_clocks_setting",
                                       "sw_power_cap",
                                       "hw_slowdown",
                                       "sync_boost",
                                       "sw_thermal_slowdown",
                                       "hw_thermal_slowdown",
                                       "hw_power_brake_slowdown",
                                       "display_clock_setting"};
  for (std::size_t bit = 0; bit < names.size(); ++bit) {
    EXPECT_EQ(clock_event_reason_names(std::uint64_t{1} << bit), std::vector<std::string>{names[bit]});
  }
  EXPECT_TRUE(clock_event_reason_names(0).empty());
  EXPECT_EQ(clock_event_reason_names(0x4 | 0x2 | 0x200),
            (std::vector<std::string>{"applications_clocks_setting", "sw_power_cap", "unknown_0x200"}));
  EXPECT_EQ(clock_event_reason_names(0x1ff).size(), 9u);
}

TEST(Nvml, ViolationCausesMapToNvmlsPolicies) {
  EXPECT_EQ(nvml_perf_policy(ViolationCause::kPower), 0);
  EXPECT_EQ(nvml_perf_policy(ViolationCause::kReliability), 5);
  EXPECT_EQ(nvml_perf_policy(ViolationCause::kApplicationClocks), 10);
  EXPECT_EQ(nvml_perf_policy(ViolationCause::kBaseClocks), 11);
  EXPECT_STREQ(violation_cause_name(ViolationCause::kSyncBoost), "sync_boost");
}

TEST(EnergyCounter, DifferencesHoldAcrossAWrap) {
  EXPECT_EQ(counter_delta(100, 250, 1000), 150u);
  EXPECT_EQ(counter_delta(900, 50, 1000), 150u);  // wrapped at 1000
  EXPECT_TRUE(contains(error_of([] { (void)counter_delta(900, 50, 0); }), "900 then 50"));
  CumulativeEnergy total(1e-6, 1000);
  for (const std::uint64_t raw : {800, 950, 100, 600, 20}) total.add(raw);  // two wraps
  EXPECT_DOUBLE_EQ(total.joules(), (150 + 150 + 500 + 420) * 1e-6);
}

// A powercap tree: two packages with a core subzone each (left out), a DRAM subzone on the first,
// and an mmio zone (left out).
class RaplTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ampbench-rapl-" + std::to_string(getpid()));
    zone("intel-rapl:0", "package-0", 1000, 4000);
    zone("intel-rapl:0/intel-rapl:0:0", "core", 1000, 10);
    zone("intel-rapl:0/intel-rapl:0:1", "dram", 1000, 200);
    zone("intel-rapl:1", "package-1", 1000, 3000);
    zone("intel-rapl:1/intel-rapl:1:0", "core", 1000, 10);
    zone("intel-rapl-mmio:0", "package-0", 1000, 5);
  }
  void TearDown() override { fs::remove_all(root_); }
  void zone(const std::string& path, const std::string& name, std::uint64_t max, std::uint64_t energy) {
    fs::create_directories(root_ / path);
    std::ofstream(root_ / path / "name") << name << "\n";
    std::ofstream(root_ / path / "max_energy_range_uj") << max - 1 << "\n";
    write(path, energy);
  }
  void write(const std::string& path, std::uint64_t energy) {
    std::ofstream(root_ / path / "energy_uj") << energy << "\n";
  }
  fs::path root_;
};

TEST_F(RaplTree, PackagesAndTheirDramAreSummedAcrossAWrap) {
  const auto domains = find_rapl_domains(root_);
  ASSERT_EQ(domains.size(), 3u);
  EXPECT_EQ(domains[0].name, "package-0");
  EXPECT_EQ(domains[1].name, "dram");
  EXPECT_EQ(domains[2].name, "package-1");
  EXPECT_EQ(domains[0].range_uj, 1000u);
  RaplEnergyMeter meter(domains);
  EXPECT_EQ(meter.description(), "RAPL package-0 + dram + package-1 (powercap)");
  EXPECT_DOUBLE_EQ(meter.joules(), 0.0);
  write("intel-rapl:0", 4500);
  write("intel-rapl:0/intel-rapl:0:1", 150);  // wrapped at 1000: 950 uJ
  write("intel-rapl:1", 3100);
  EXPECT_NEAR(meter.joules(), (500 + 950 + 100) * 1e-6, 1e-12);
}

TEST_F(RaplTree, WhatCannotBeReadIsNamed) {
  EXPECT_TRUE(contains(error_of([&] { (void)find_rapl_domains(root_ / "absent"); }),
                       (root_ / "absent").string() + ": no such folder"));
  fs::remove_all(root_ / "intel-rapl:0");
  fs::remove_all(root_ / "intel-rapl:1");
  EXPECT_TRUE(contains(error_of([&] { (void)find_rapl_domains(root_); }), "no intel-rapl zone"));
  zone("intel-rapl:0", "package-0", 1000, 4000);
  if (geteuid() != 0) {  // root reads a file whatever its mode
    fs::permissions(root_ / "intel-rapl:0" / "energy_uj", fs::perms::none);
    const auto error = error_of([&] { (void)find_rapl_domains(root_); });
    EXPECT_TRUE(contains(error, "intel-rapl:0/energy_uj: not readable by this user")) << error;
  }
}

TEST(Rapl, TheMachinesOwnInterfaceReadsOrSaysWhichPathFailed) {
  try {
    RaplEnergyMeter meter(find_rapl_domains());
    EXPECT_GE(meter.joules(), 0.0);
  } catch (const std::runtime_error& error) {
    EXPECT_TRUE(contains(error.what(), "/sys/class/powercap")) << error.what();
  }
}

}  // namespace
