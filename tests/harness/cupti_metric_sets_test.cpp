// The metric table against CUPTI's own knowledge of each chip (toolkit CUPTI, host API only).
#include <cupti_profiler_host.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "profile/cupti/cupti_metric_sets.h"

namespace ampbench::harness::cupti {
namespace {

std::vector<std::string> chips_cupti_lists() {
  CUpti_Profiler_Host_GetSupportedChips_Params params{};
  params.structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE;
  EXPECT_EQ(cuptiProfilerHostGetSupportedChips(&params), CUPTI_SUCCESS);
  return {params.ppChipNames, params.ppChipNames + params.numChips};
}

CUptiResult initialize_range_profiler_host(const std::string& chip) {
  CUpti_Profiler_Host_Initialize_Params init{};
  init.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip.c_str();
  const CUptiResult result = cuptiProfilerHostInitialize(&init);
  if (result == CUPTI_SUCCESS) {
    CUpti_Profiler_Host_Deinitialize_Params deinit{};
    deinit.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    deinit.pHostObject = init.pHostObject;
    cuptiProfilerHostDeinitialize(&deinit);
  }
  return result;
}

TEST(CuptiMetricSets, UnknownChipIsUnsupportedByName) {
  try {
    static_cast<void>(tensor_core_metric_set("GZ999"));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("unsupported chip 'GZ999'"), std::string::npos) << error.what();
  }
}

// When a newer CUPTI lists a chip the table lacks, this names it. A chip without a set is either
// one the range profiler cannot collect on (older than Turing), or one whose range profiler the host
// API itself refuses.
TEST(CuptiMetricSets, EveryChipCuptiListsHasASetOrAReasonWhyNot) {
  const auto table = chips_with_metric_sets();
  const auto below_turing = chips_without_range_profiler();
  for (const auto& chip : chips_cupti_lists()) {
    if (std::find(table.begin(), table.end(), chip) != table.end()) continue;
    if (std::find(below_turing.begin(), below_turing.end(), chip) != below_turing.end()) continue;
    EXPECT_EQ(initialize_range_profiler_host(chip), CUPTI_ERROR_NOT_SUPPORTED)
        << "CUPTI can range-profile chip " << chip << " but ampbench has no metric set for it";
  }
}

TEST(CuptiMetricSets, EveryChipInTheTablesIsOneCuptiLists) {
  const auto listed = chips_cupti_lists();
  for (const auto chip : chips_with_metric_sets()) {
    EXPECT_NE(std::find(listed.begin(), listed.end(), chip), listed.end()) << chip;
  }
  for (const auto chip : chips_without_range_profiler()) {
    EXPECT_NE(std::find(listed.begin(), listed.end(), chip), listed.end()) << chip;
  }
}

// The range profiler needs compute capability 7.5: a V100 must say so instead of failing later in
// cuptiRangeProfilerEnable with a code that names no cause.
TEST(CuptiMetricSets, VoltaIsUnsupportedBecauseTheRangeProfilerNeedsTuring) {
  for (const auto chip : {"GV100", "GV11B"}) {
    try {
      static_cast<void>(tensor_core_metric_set(chip));
      FAIL() << "expected std::invalid_argument for " << chip;
    } catch (const std::invalid_argument& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("unsupported chip '" + std::string(chip) + "'"), std::string::npos) << message;
      EXPECT_NE(message.find("compute capability 7.5"), std::string::npos) << message;
      EXPECT_NE(message.find("Turing to Blackwell"), std::string::npos) << message;
    }
  }
  const auto table = chips_with_metric_sets();
  EXPECT_EQ(std::find(table.begin(), table.end(), "GV100"), table.end());
  EXPECT_EQ(table.front(), "TU102");
}

TEST(CuptiMetricSets, EverySetCountsTensorInstructionsAndElapsedCycles) {
  for (const auto chip : chips_with_metric_sets()) {
    const auto metrics = tensor_core_metric_set(chip);
    const auto has_unit = [&](const std::string& unit) {
      return std::any_of(metrics.begin(), metrics.end(), [&](const MetricRequest& m) { return m.unit == unit; });
    };
    EXPECT_TRUE(has_unit("percent")) << chip;
    EXPECT_TRUE(has_unit("instructions")) << chip;
    EXPECT_TRUE(has_unit("cycles")) << chip;
  }
}

}  // namespace
}  // namespace ampbench::harness::cupti
