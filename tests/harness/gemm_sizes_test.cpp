// The GEMM peak's choices between the sizes it timed (harness/src/machine/gemm_sizes.h): the peak
// at the fastest median, the speed against float32's at a size both were timed at.
#include <gtest/gtest.h>

#include "machine/gemm_sizes.h"

namespace {

using ampbench::harness::detail::common_size;
using ampbench::harness::detail::fastest_size;
using ampbench::harness::detail::SizeMedian;

TEST(GemmSizes, ThePeakIsTakenAtTheFastestMedian) {
  EXPECT_EQ(fastest_size({{256, 4.0}, {512, 3.0}, {1024, 3.5}}), 1u);
  EXPECT_EQ(fastest_size({{128, 2.0}}), 0u);
  // A tie keeps the first (smaller) size.
  EXPECT_EQ(fastest_size({{512, 3.0}, {1024, 3.0}}), 0u);
}

TEST(GemmSizes, TheRatioIsTakenWhereBothRanFastestTogether) {
  // float16 fastest at 1024 alone and float32 at 256 alone; of the sizes both were timed at (512,
  // 1024), 512 has the least product: 3.0 * 4.0 = 12 against 2.9 * 5.0 = 14.5.
  const std::vector<SizeMedian> float16 = {{512, 3.0}, {1024, 2.9}};
  const std::vector<SizeMedian> float32 = {{256, 3.9}, {512, 4.0}, {1024, 5.0}};
  const auto common = common_size(float16, float32);
  ASSERT_TRUE(common.has_value());
  EXPECT_EQ(float16[common->first].size, 512);
  EXPECT_EQ(float32[common->second].size, 512);
}

TEST(GemmSizes, EitherDtypeMayDecideTheCommonSize) {
  // The same float16 medians; float32 now much faster at 1024: 2.9 * 2.0 = 5.8 against 3.0 * 4.0.
  const std::vector<SizeMedian> float16 = {{512, 3.0}, {1024, 2.9}};
  const std::vector<SizeMedian> float32 = {{512, 4.0}, {1024, 2.0}, {2048, 1.0}};
  const auto common = common_size(float16, float32);
  ASSERT_TRUE(common.has_value());
  EXPECT_EQ(common->first, 1u);
  EXPECT_EQ(common->second, 1u);
}

TEST(GemmSizes, NoSizeInCommonIsSaid) {
  EXPECT_FALSE(common_size({{128, 1.0}, {256, 1.0}}, {{512, 1.0}, {1024, 1.0}}).has_value());
  EXPECT_FALSE(common_size({}, {{512, 1.0}}).has_value());
}

}  // namespace
