// Strict JSON numbers: a double that is not finite becomes null, never a bare NaN or Infinity.
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampbench::reports::detail {

[[nodiscard]] inline nlohmann::json json_number(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

[[nodiscard]] inline nlohmann::json json_number(const std::optional<double>& value) {
  return value ? json_number(*value) : nlohmann::json(nullptr);
}

[[nodiscard]] inline nlohmann::json json_numbers(const std::vector<double>& values) {
  auto out = nlohmann::json::array();
  for (double value : values) out.push_back(json_number(value));
  return out;
}

// A value, or null where it is absent.
template <typename T>
[[nodiscard]] nlohmann::json json_optional(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace ampbench::reports::detail
