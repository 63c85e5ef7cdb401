// Golden-output checks: the rendered text must equal a file under tests/reports/golden/. Run a
// test with AMPBENCH_UPDATE_GOLDEN=1 to rewrite the file after an intended change, then review
// the diff like code.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace ampbench::testing {

inline void expect_matches_golden(const std::string& actual, const std::string& name) {
  const std::string path = std::string(AMPBENCH_GOLDEN_DIR) + "/" + name;
  if (std::getenv("AMPBENCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run with AMPBENCH_UPDATE_GOLDEN=1 to create it";
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "differs from " << path << "; actual output:\n" << actual;
}

}  // namespace ampbench::testing
