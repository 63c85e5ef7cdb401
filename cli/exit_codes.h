// The CLI's exit codes, part of its contract with CI pipelines.
#pragma once

#include <stdexcept>

namespace ampbench::cli {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitRegression = 1;  // a regression, or cells that failed
inline constexpr int kExitBadInput = 2;    // bad usage or bad input; nothing was written
// An error that is ampbench's own fault, not the input's: it must never read as a verdict.
inline constexpr int kExitInternalError = 3;
// `history check`: a cell would regress on this run alone; run the suite again and pass both.
inline constexpr int kExitNeedsConfirmation = 4;

// Thrown for bad input that the parser cannot see (a file that does not parse, say). Its message
// names the flag, file or field; main() prints it as one line and exits kExitBadInput.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ampbench::cli
