// What the CLI tests check of every bad input (exit 2, one line naming the culprit, nothing on
// stdout), and a file's bytes, to show that a refused command left it as it was.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/process.h"

namespace ampbench::testing {

[[nodiscard]] inline long line_count(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

[[nodiscard]] inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Exit 2, the error and the usage line only, the culprit named, nothing on stdout.
inline void expect_bad_input(const ProcessResult& result, const std::string& culprit) {
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(line_count(result.err), 2) << result.err;
  EXPECT_NE(result.err.find(culprit), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

}  // namespace ampbench::testing
