// Strict JSON numbers: a double that is not finite becomes null, never a bare NaN or Infinity.
#pragma once

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

namespace ampbench::reports::detail {

[[nodiscard]] inline nlohmann::json json_number(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

[[nodiscard]] inline nlohmann::json json_number(const std::optional<double>& value) {
  return value ? json_number(*value) : nlohmann::json(nullptr);
}

}  // namespace ampbench::reports::detail
