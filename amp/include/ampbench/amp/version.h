// The version of the ampbench::amp library, for consumers that check what they linked.
#pragma once

#include <string_view>

namespace ampbench::amp {

[[nodiscard]] std::string_view version() noexcept;

}  // namespace ampbench::amp
