// Argument checks shared by the statistics: they throw std::invalid_argument naming what was wrong,
// because a NaN that slipped into a median would silently poison every figure after it.
#pragma once

#include <string_view>
#include <vector>

namespace ampbench::reports::detail {

// Throws unless samples is non-empty and every value is finite; `what` names the samples.
void require_finite_samples(const std::vector<double>& samples, std::string_view what);

}  // namespace ampbench::reports::detail
