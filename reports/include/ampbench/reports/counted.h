// A count with its noun: "1 run", "3 runs". Every message that counts something goes through it,
// so none reads "1 runs" and none spells the rule out again.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ampbench::reports {

// `count` and `one` when count is 1, else `count` and `many` (0 takes the plural, as English does):
// counted(2, "try", "tries") -> "2 tries".
[[nodiscard]] std::string counted(std::size_t count, std::string_view one, std::string_view many);

}  // namespace ampbench::reports
