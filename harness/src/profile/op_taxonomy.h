// Private: what the time breakdown knows about ops beyond time_breakdown.h's public half.
#pragma once

#include <string>

#include "profile/time_breakdown.h"

namespace ampbench::harness {

// A matrix product, convolution or attention op, by its ATen name.
[[nodiscard]] bool is_matrix_product(const std::string& name);

}  // namespace ampbench::harness
