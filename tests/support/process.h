// Runs a program to completion and captures what it said, for tests of the CLI's contract
// (exit codes, one-line errors, files written or not).
#pragma once

#include <string>
#include <vector>

namespace ampbench::testing {

struct ProcessResult {
  int exit_code = -1;  // the program's exit status, or 128 + signal if it was killed
  std::string out;
  std::string err;
};

// `extra_environment` entries ("NAME=value") are added to this process's environment for the child.
[[nodiscard]] ProcessResult run_process(const std::vector<std::string>& argv,
                                        const std::vector<std::string>& extra_environment = {});

}  // namespace ampbench::testing
