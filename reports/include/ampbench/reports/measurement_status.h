// Whether a figure that needs the machine's help (a GEMM peak, tensor-core metrics) was measured,
// or could not be; the reason beside it says why. Code compares the enum; the names exist only for
// report.json and printing.
#pragma once

#include <array>
#include <iosfwd>
#include <optional>
#include <string_view>

namespace ampbench::reports {

enum class MeasurementStatus { kMeasured, kUnavailable };

inline constexpr std::array<MeasurementStatus, 2> kMeasurementStatuses{MeasurementStatus::kMeasured,
                                                                       MeasurementStatus::kUnavailable};

// "measured", "unavailable".
[[nodiscard]] std::string_view to_string(MeasurementStatus status);
// The status of that name; nullopt for any other text.
[[nodiscard]] std::optional<MeasurementStatus> measurement_status_named(std::string_view name);

std::ostream& operator<<(std::ostream& out, MeasurementStatus status);

}  // namespace ampbench::reports
