// summarize_kernel_time on synthetic activity records, against hand-computed shares.
#include "profile/kernel_time_share.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using ampbench::harness::KernelRecord;
using ampbench::harness::summarize_kernel_time;
using ampbench::harness::to_tensor_core_metric;

constexpr const char* kHgemm = "ampere_h16816gemm_128x128_ldg8_stages_64x3_nt";
constexpr const char* kNvjet = "nvjet_hsh_192x192_64x3_2x1_v_bz_coopB_NTN";
constexpr const char* kSgemm = "ampere_sgemm_128x64_tn";
constexpr const char* kAdd = "void at::native::vectorized_elementwise_kernel<4>(int)";

TEST(KernelTimeShare, SharesTensorCoreTimeOverAllKernelTime) {
  // Tensor cores: 300 + 100 + 200 = 600 ns of 600 + 250 + 150 = 1000 ns.
  const std::vector<KernelRecord> records = {
      {kHgemm, 300}, {kSgemm, 250}, {kHgemm, 100}, {kAdd, 50}, {kNvjet, 200}, {kAdd, 100},
  };
  const auto summary = summarize_kernel_time(records, 10);
  EXPECT_EQ(summary.total_ns, 1000U);
  EXPECT_EQ(summary.tensor_core_ns, 600U);
  EXPECT_DOUBLE_EQ(summary.share, 0.6);
  EXPECT_EQ(summary.kernel_count, 6);
}

TEST(KernelTimeShare, TopKernelsAreSummedPerNameLongestFirstWithTheirVerdict) {
  const std::vector<KernelRecord> records = {
      {kHgemm, 300}, {kSgemm, 250}, {kHgemm, 100}, {kAdd, 50}, {kNvjet, 200}, {kAdd, 100},
  };
  const auto summary = summarize_kernel_time(records, 3);
  ASSERT_EQ(summary.top_kernels.size(), 3U);
  EXPECT_EQ(summary.top_kernels[0].name, kHgemm);
  EXPECT_EQ(summary.top_kernels[0].total_ns, 400U);
  EXPECT_EQ(summary.top_kernels[0].launches, 2);
  EXPECT_TRUE(summary.top_kernels[0].tensor_core);
  EXPECT_EQ(summary.top_kernels[0].rule, "mma-instruction-shape");
  EXPECT_EQ(summary.top_kernels[1].name, kSgemm);
  EXPECT_FALSE(summary.top_kernels[1].tensor_core);
  EXPECT_EQ(summary.top_kernels[2].name, kNvjet);
  EXPECT_EQ(summary.top_kernels[2].rule, "cublas-nvjet");
  // Cutting the list to the top kernels leaves the totals over every kernel.
  EXPECT_EQ(summary.total_ns, 1000U);
}

TEST(KernelTimeShare, EqualTimesAreOrderedByName) {
  const std::vector<KernelRecord> records = {{kSgemm, 100}, {kAdd, 100}, {kHgemm, 100}};
  const auto summary = summarize_kernel_time(records, 10);
  ASSERT_EQ(summary.top_kernels.size(), 3U);
  EXPECT_EQ(summary.top_kernels[0].name, kHgemm);
  EXPECT_EQ(summary.top_kernels[1].name, kSgemm);
  EXPECT_EQ(summary.top_kernels[2].name, kAdd);
}

TEST(KernelTimeShare, AllCudaCoreTimeIsAShareOfZero) {
  const std::vector<KernelRecord> records = {{kSgemm, 700}, {kAdd, 300}};
  EXPECT_DOUBLE_EQ(summarize_kernel_time(records, 10).share, 0.0);
}

TEST(KernelTimeShare, NoRecordsIsNoTimeAndNoDivisionByZero) {
  const auto summary = summarize_kernel_time({}, 10);
  EXPECT_EQ(summary.total_ns, 0U);
  EXPECT_EQ(summary.kernel_count, 0);
  EXPECT_DOUBLE_EQ(summary.share, 0.0);
  EXPECT_TRUE(summary.top_kernels.empty());
}

TEST(KernelTimeShare, ZeroLengthKernelsCountAsLaunchesOnly) {
  const std::vector<KernelRecord> records = {{kHgemm, 0}, {kSgemm, 400}};
  const auto summary = summarize_kernel_time(records, 10);
  EXPECT_EQ(summary.kernel_count, 2);
  EXPECT_DOUBLE_EQ(summary.share, 0.0);
}

TEST(KernelTimeShare, TheReportMetricNamesItsMethod) {
  const std::vector<KernelRecord> records = {{kHgemm, 750}, {kAdd, 250}};
  const auto metric = to_tensor_core_metric(summarize_kernel_time(records, 10));
  EXPECT_EQ(metric.name, "tensor_core_kernel_time_share");
  EXPECT_DOUBLE_EQ(metric.value, 0.75);
  EXPECT_EQ(metric.unit, "fraction");
  EXPECT_EQ(metric.method, "cupti-activity-kernel-names");
}

}  // namespace
