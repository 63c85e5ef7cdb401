// Whether a cell ran to the end or stopped with an error. Code compares the enum; the names
// ("ok", "failed") exist only for the JSON report and for printing (gtest, logs).
#pragma once

#include <iosfwd>
#include <string_view>

namespace ampbench::reports {

enum class CellStatus { kOk, kFailed };

// The name report.json uses ("ok" or "failed").
[[nodiscard]] constexpr std::string_view to_string(CellStatus status) {
  return status == CellStatus::kOk ? "ok" : "failed";
}

// Prints to_string(status), so a failed test assertion shows "failed" rather than a number.
std::ostream& operator<<(std::ostream& out, CellStatus status);

}  // namespace ampbench::reports
