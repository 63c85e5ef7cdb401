// The formatting rules that every part writing text shares (the reports, the history's check and
// show, the CLI), so that a percentage or a list reads the same wherever it appears.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ampbench::reports {

// 0.2 -> "+20.0%" (signed) or "20.0%", one decimal; "n/a" when not finite.
[[nodiscard]] std::string format_percent(double fraction, bool signed_value);

// The parts with `separator` between them: {"a", "b"}, "; " -> "a; b". A separator goes in only
// once the text is not empty, so empty leading parts leave no separator behind.
[[nodiscard]] std::string joined(const std::vector<std::string>& parts, std::string_view separator);

}  // namespace ampbench::reports
