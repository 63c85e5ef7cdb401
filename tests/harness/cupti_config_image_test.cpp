// Config images for every chip in the metric table, built by CUPTI's host API without a GPU.
#include <cupti_profiler_host.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "profile/cupti/cupti_config_image.h"
#include "profile/cupti/cupti_metric_sets.h"
#include "profile/cupti/cupti_unavailable_reason.h"

namespace ampbench::harness::cupti {
namespace {

// CUPTI's dimension for a metric ("percent", "instruction", "gpc_cycle", ...).
std::string cupti_dimension_of(const std::string& chip, const std::string& metric) {
  CUpti_Profiler_Host_Initialize_Params init{};
  init.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip.c_str();
  if (cuptiProfilerHostInitialize(&init) != CUPTI_SUCCESS) return "(chip refused)";
  CUpti_Profiler_Host_GetMetricProperties_Params properties{};
  properties.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
  properties.pHostObject = init.pHostObject;
  properties.pMetricName = metric.c_str();
  const bool known = cuptiProfilerHostGetMetricProperties(&properties) == CUPTI_SUCCESS;
  std::string dimension = known && properties.pDimUnit != nullptr ? properties.pDimUnit : "(metric refused)";
  CUpti_Profiler_Host_Deinitialize_Params deinit{};
  deinit.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
  deinit.pHostObject = init.pHostObject;
  cuptiProfilerHostDeinitialize(&deinit);
  return dimension;
}

bool unit_matches_dimension(const std::string& unit, const std::string& dimension) {
  if (unit == "percent") return dimension == "percent";
  if (unit == "instructions") return dimension == "instruction";
  if (unit == "cycles") return dimension.ends_with("cycle");
  return false;
}

class ConfigImagePerChip : public testing::TestWithParam<std::string_view> {};

TEST_P(ConfigImagePerChip, HostApiAcceptsTheWholeSetAndSchedulesIt) {
  const std::string chip(GetParam());
  const ConfigImage config = build_config_image(chip, metric_names(tensor_core_metric_set(chip)));
  EXPECT_FALSE(config.bytes.empty());
  EXPECT_GE(config.passes, 1);
  RecordProperty("passes", config.passes);
}

TEST_P(ConfigImagePerChip, UnitsAgreeWithCuptisDimensions) {
  const std::string chip(GetParam());
  for (const auto& metric : tensor_core_metric_set(chip)) {
    const std::string dimension = cupti_dimension_of(chip, metric.name);
    EXPECT_TRUE(unit_matches_dimension(metric.unit, dimension))
        << metric.name << " on " << chip << ": unit " << metric.unit << ", CUPTI says " << dimension;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryChipInTheTable, ConfigImagePerChip, testing::ValuesIn(chips_with_metric_sets()),
                         [](const testing::TestParamInfo<std::string_view>& chip) { return std::string(chip.param); });

TEST(ConfigImage, MadeUpMetricIsNamedWithTheChip) {
  try {
    static_cast<void>(build_config_image("GA100", {"sm__cycles_elapsed.max", "sm__made_up_metric.sum"}));
    FAIL() << "expected CuptiCallFailed";
  } catch (const CuptiCallFailed& error) {
    const std::string message = error.what();
    // CUPTI 13.0 answers an unknown name with CUPTI_ERROR_INVALID_PARAMETER, not ..._INVALID_METRIC_NAME.
    EXPECT_TRUE(error.result() == CUPTI_ERROR_INVALID_PARAMETER || error.result() == CUPTI_ERROR_INVALID_METRIC_NAME)
        << error.result();
    EXPECT_NE(message.find("'sm__made_up_metric.sum'"), std::string::npos) << message;
    EXPECT_NE(message.find("'GA100'"), std::string::npos) << message;
    EXPECT_EQ(message.find("'sm__cycles_elapsed.max'"), std::string::npos) << "blames the good metric: " << message;
  }
}

TEST(ConfigImage, MetricFromAnotherArchitectureIsRefused) {
  // Blackwell renamed the HMMA pipe counter; asking for Ampere's name there must fail, by name.
  try {
    static_cast<void>(
        build_config_image("GB100", {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"}));
    FAIL() << "expected CuptiCallFailed";
  } catch (const CuptiCallFailed& error) {
    EXPECT_NE(std::string(error.what()).find("'sm__pipe_tensor_op_hmma_cycles_active"), std::string::npos)
        << error.what();
  }
}

TEST(ConfigImage, UnknownChipIsNamed) {
  try {
    static_cast<void>(build_config_image("GZ999", {"sm__cycles_elapsed.max"}));
    FAIL() << "expected CuptiCallFailed";
  } catch (const CuptiCallFailed& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.result(), CUPTI_ERROR_INVALID_CHIP_NAME);
    EXPECT_NE(message.find("unsupported chip"), std::string::npos) << message;
    EXPECT_NE(message.find("'GZ999'"), std::string::npos) << message;
  }
}

TEST(ConfigImage, NoMetricsIsAnErrorNamingTheChip) {
  try {
    static_cast<void>(build_config_image("GA100", {}));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("'GA100'"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ampbench::harness::cupti
