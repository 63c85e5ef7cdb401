#include "ampbench/reports/text_format.h"

#include <gtest/gtest.h>

#include <limits>

namespace ampbench::reports {
namespace {

TEST(FormatPercent, OneDecimalWithTheSignWhenAsked) {
  EXPECT_EQ(format_percent(0.2, true), "+20.0%");
  EXPECT_EQ(format_percent(0.2, false), "20.0%");
  EXPECT_EQ(format_percent(-0.05, true), "-5.0%");
  EXPECT_EQ(format_percent(0.0, true), "+0.0%");
  EXPECT_EQ(format_percent(1.5, true), "+150.0%");
}

TEST(FormatPercent, ANegativeZeroIsNotSignedTwice) {
  EXPECT_EQ(format_percent(-0.0, true), "-0.0%");
  EXPECT_EQ(format_percent(-0.0001, true), "-0.0%");
}

TEST(FormatPercent, WhatIsNotFiniteIsNotAPercentage) {
  EXPECT_EQ(format_percent(std::numeric_limits<double>::quiet_NaN(), true), "n/a");
  EXPECT_EQ(format_percent(std::numeric_limits<double>::infinity(), false), "n/a");
}

TEST(Joined, PutsTheSeparatorBetweenParts) {
  EXPECT_EQ(joined({"a", "b", "c"}, "; "), "a; b; c");
  EXPECT_EQ(joined({"only"}, ","), "only");
  EXPECT_EQ(joined({}, ","), "");
}

TEST(Joined, EmptyLeadingPartsLeaveNoSeparator) { EXPECT_EQ(joined({"", "", "x", "", "y"}, ","), "x,,y"); }

}  // namespace
}  // namespace ampbench::reports
