// Private: what the time breakdown knows about ops beyond time_breakdown.h's public half.
#pragma once

#include <string>

#include "profile/time_breakdown.h"

namespace ampbench::harness {

// The category of time no op accounts for: the autograd engine, views, allocation, host code.
inline constexpr const char* kRestCategory = "rest (autograd, views, host)";

// A matrix product, convolution or attention op, by its ATen name.
[[nodiscard]] bool is_matrix_product(const std::string& name);

}  // namespace ampbench::harness
