#include "ampbench/reports/counted.h"

#include <gtest/gtest.h>

namespace ampbench::reports {
namespace {

TEST(Counted, OneTakesTheSingularAndEveryOtherCountThePlural) {
  EXPECT_EQ(counted(1, "run", "runs"), "1 run");
  EXPECT_EQ(counted(0, "run", "runs"), "0 runs");
  EXPECT_EQ(counted(2, "try", "tries"), "2 tries");
  EXPECT_EQ(counted(11, "bad step", "bad steps"), "11 bad steps");
}

}  // namespace
}  // namespace ampbench::reports
