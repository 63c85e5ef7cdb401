#include "ampbench/reports/stop_reason.h"

#include <algorithm>
#include <charconv>
#include <ostream>
#include <utility>
#include <vector>

#include "ampbench/reports/enum_names.h"

namespace ampbench::reports {
namespace {

// "NAME in N" (and the first of several: "NAME in N of TOTAL workers"): the reason and its count.
std::optional<std::pair<StopReason, std::int64_t>> counted_reason(std::string_view part) {
  if (const auto of = part.find(" of "); of != std::string_view::npos) part = part.substr(0, of);
  const auto in = part.rfind(" in ");
  if (in == std::string_view::npos) return std::nullopt;
  const auto reason = stop_reason_named(part.substr(0, in));
  const auto digits = part.substr(in + 4);
  std::int64_t count = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (!reason || error != std::errc{} || end != digits.data() + digits.size() || count < 1) return std::nullopt;
  return std::pair{*reason, count};
}

}  // namespace

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kPrecisionReached:
      return "precision reached";
    case StopReason::kStepCap:
      return "step cap";
    case StopReason::kTimeCap:
      return "time cap";
    case StopReason::kEveryModeFailed:
      return "every mode failed";
  }
  return "unknown";
}

std::optional<StopReason> stop_reason_named(std::string_view name) { return detail::value_named(name, kStopReasons); }

std::string describe(const StopReasonCounts& counts) {
  if (counts.size() == 1) return std::string(to_string(counts.begin()->first));
  std::vector<std::pair<std::int64_t, StopReason>> ordered;
  std::int64_t workers = 0;
  for (const auto& [reason, count] : counts) {
    ordered.emplace_back(count, reason);
    workers += count;
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text;
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    const auto& [count, reason] = ordered[i];
    text += std::string(i == 0 ? "" : ", ") + std::string(to_string(reason)) + " in " + std::to_string(count) +
            (i == 0 ? " of " + std::to_string(workers) + " workers" : "");
  }
  return text;
}

std::optional<StopReasonCounts> stop_reasons_described(std::string_view sentence) {
  if (sentence.empty()) return StopReasonCounts{};
  if (const auto alone = stop_reason_named(sentence)) return StopReasonCounts{{*alone, 1}};
  StopReasonCounts counts;
  for (std::size_t begin = 0; begin <= sentence.size();) {
    const auto end = std::min(sentence.find(", ", begin), sentence.size());
    const auto counted = counted_reason(sentence.substr(begin, end - begin));
    if (!counted || !counts.emplace(counted->first, counted->second).second) return std::nullopt;
    begin = end + 2;
  }
  if (describe(counts) != sentence) return std::nullopt;  // the totals and the order must be the ones written
  return counts;
}

std::ostream& operator<<(std::ostream& out, StopReason reason) { return out << to_string(reason); }

}  // namespace ampbench::reports
