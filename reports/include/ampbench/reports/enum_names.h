// The lookups every vocabulary enum needs beside its name table (its `to_string`): the value of a
// name, and the names as an error message offers them.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ampbench::reports::detail {

// The value whose to_string is `name`; nullopt for any other text.
template <typename Enum, std::size_t N>
[[nodiscard]] std::optional<Enum> value_named(std::string_view name, const std::array<Enum, N>& values) {
  for (const auto value : values) {
    if (to_string(value) == name) return value;
  }
  return std::nullopt;
}

// "a, b or c".
[[nodiscard]] inline std::string alternatives(const std::vector<std::string_view>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  }
  return text;
}

template <typename Enum, std::size_t N>
[[nodiscard]] std::string alternatives(const std::array<Enum, N>& values) {
  std::vector<std::string_view> names;
  for (const auto value : values) names.push_back(to_string(value));
  return alternatives(names);
}

}  // namespace ampbench::reports::detail
