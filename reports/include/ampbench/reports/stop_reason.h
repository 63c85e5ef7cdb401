// Why a worker stopped timing a cell's rounds. Code compares the enum; the names exist only for
// report.json, the progress line and printing.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ampbench::reports {

enum class StopReason {
  kPrecisionReached,  // every interval over the rounds within --max-noise
  kStepCap,           // a mode reached --steps
  kTimeCap,           // the timed phase reached its share of --time-cap
  kEveryModeFailed,   // no mode was left to time
};

inline constexpr std::array<StopReason, 4> kStopReasons{StopReason::kPrecisionReached, StopReason::kStepCap,
                                                        StopReason::kTimeCap, StopReason::kEveryModeFailed};

// "precision reached", "step cap", "time cap", "every mode failed".
[[nodiscard]] std::string_view to_string(StopReason reason);
// The reason of that name; nullopt for any other text.
[[nodiscard]] std::optional<StopReason> stop_reason_named(std::string_view name);

// How many of a cell's workers stopped for each reason.
using StopReasonCounts = std::map<StopReason, std::int64_t>;

// The sentence report.json's "stop_reason" holds: the reason alone when every worker stopped for
// it, else each reason with its count, the most common first ("time cap in 3 of 5 workers,
// precision reached in 2"); empty for none.
[[nodiscard]] std::string describe(const StopReasonCounts& counts);
// The counts such a sentence describes, as reports written before the counts were stored say them
// (a reason alone counts one worker); nullopt when the text is no such sentence.
[[nodiscard]] std::optional<StopReasonCounts> stop_reasons_described(std::string_view sentence);

std::ostream& operator<<(std::ostream& out, StopReason reason);

}  // namespace ampbench::reports
