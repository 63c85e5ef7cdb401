// A strict reader for JSON objects that keeps the path of what it reads, so every error can say
// exactly which field of which cell is wrong, and that refuses fields it was not asked for. Every
// JSON file ampbench reads goes through it: reports, Google Benchmark output, history exports.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampbench/reports/enum_names.h"

namespace ampbench::reports::detail {

// "path: message", thrown as ReportError; the root path is empty and then only the message shows.
[[noreturn]] void fail_at(const std::string& path, const std::string& message);

// Typed reads of one JSON value; `path` names it in errors.
[[nodiscard]] double read_number_or_null(const nlohmann::json& value, const std::string& path);  // null -> NaN
[[nodiscard]] double read_finite_number(const nlohmann::json& value, const std::string& path);
[[nodiscard]] std::int64_t read_integer(const nlohmann::json& value, const std::string& path);
// An integer in [minimum, maximum]; the error states the range.
[[nodiscard]] std::int64_t read_integer_in(const nlohmann::json& value, const std::string& path, std::int64_t minimum,
                                           std::int64_t maximum);
// A duration in seconds: finite and above zero.
[[nodiscard]] double read_positive_seconds(const nlohmann::json& value, const std::string& path);
[[nodiscard]] std::string read_string(const nlohmann::json& value, const std::string& path);
[[nodiscard]] bool read_bool(const nlohmann::json& value, const std::string& path);

// Reads an array element by element: element(value, "path[i]"). max_size bounds the elements.
template <typename T>
[[nodiscard]] std::vector<T> read_array(const nlohmann::json& value, const std::string& path,
                                        const std::function<T(const nlohmann::json&, const std::string&)>& element,
                                        std::size_t max_size = SIZE_MAX);

class ObjectReader {
 public:
  // Throws unless value is an object.
  ObjectReader(const nlohmann::json& value, std::string path);

  // A field that must be present (null allowed only if the reader of its value allows it).
  [[nodiscard]] const nlohmann::json& required(std::string_view key);
  // A field that may be absent or null; nullptr then.
  [[nodiscard]] const nlohmann::json* optional(std::string_view key);
  [[nodiscard]] std::string path_of(std::string_view key) const;

  // Shorthands: the field's value read by the typed readers above.
  [[nodiscard]] double number_or_null(std::string_view key) { return read_number_or_null(required(key), path_of(key)); }
  [[nodiscard]] std::int64_t integer(std::string_view key) { return read_integer(required(key), path_of(key)); }
  [[nodiscard]] std::int64_t integer_in(std::string_view key, std::int64_t minimum, std::int64_t maximum) {
    return read_integer_in(required(key), path_of(key), minimum, maximum);
  }
  [[nodiscard]] std::string text(std::string_view key) { return read_string(required(key), path_of(key)); }
  [[nodiscard]] bool flag(std::string_view key) { return read_bool(required(key), path_of(key)); }
  // A string field that must be one of two values ("ok" or "failed"), else an error naming both.
  [[nodiscard]] std::string either(std::string_view key, std::string_view first, std::string_view second);
  // A string field naming one value of a vocabulary enum (by its to_string), else an error quoting
  // every name.
  template <typename Enum, std::size_t N>
  [[nodiscard]] Enum named(std::string_view key, const std::array<Enum, N>& values) {
    const auto name = text(key);
    if (const auto value = value_named(name, values)) return *value;
    std::vector<std::string> quoted;
    for (const auto value : values) quoted.push_back("\"" + std::string(to_string(value)) + "\"");
    fail_at(path_of(key), "expected " + alternatives(std::vector<std::string_view>(quoted.begin(), quoted.end())) +
                              ", got \"" + name + "\"");
  }

  // Throws for the first field that was never asked for.
  void finish() const;

 private:
  const nlohmann::json& value_;
  std::string path_;
  std::set<std::string, std::less<>> seen_;
};

template <typename T>
std::vector<T> read_array(const nlohmann::json& value, const std::string& path,
                          const std::function<T(const nlohmann::json&, const std::string&)>& element,
                          std::size_t max_size) {
  if (!value.is_array()) fail_at(path, std::string("expected an array, got ") + value.type_name());
  if (value.size() > max_size) {
    fail_at(path, std::to_string(value.size()) + " values; the limit is " + std::to_string(max_size));
  }
  std::vector<T> result;
  result.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i)
    result.push_back(element(value[i], path + "[" + std::to_string(i) + "]"));
  return result;
}

}  // namespace ampbench::reports::detail
