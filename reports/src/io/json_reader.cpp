#include "ampbench/reports/json_reader.h"

#include <cmath>
#include <limits>

#include "ampbench/reports/report_json.h"

namespace ampbench::reports::detail {
namespace {

std::string got(const nlohmann::json& value) { return std::string(", got ") + value.type_name(); }

}  // namespace

void fail_at(const std::string& path, const std::string& message) {
  throw ReportError(path.empty() ? message : path + ": " + message);
}

double read_number_or_null(const nlohmann::json& value, const std::string& path) {
  if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!value.is_number()) fail_at(path, "expected a number or null" + got(value));
  return value.get<double>();
}

double read_finite_number(const nlohmann::json& value, const std::string& path) {
  if (!value.is_number()) fail_at(path, "expected a number" + got(value));
  const auto number = value.get<double>();
  if (!std::isfinite(number)) fail_at(path, "expected a finite number");
  return number;
}

std::int64_t read_integer(const nlohmann::json& value, const std::string& path) {
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail_at(path, "integer " + value.dump() + " is out of range");
    }
    return static_cast<std::int64_t>(value.get<std::uint64_t>());
  }
  if (!value.is_number_integer()) fail_at(path, "expected an integer" + got(value));
  return value.get<std::int64_t>();
}

std::int64_t read_integer_in(const nlohmann::json& value, const std::string& path, std::int64_t minimum,
                             std::int64_t maximum) {
  const std::int64_t number = read_integer(value, path);
  if (number < minimum || number > maximum) {
    fail_at(path, "expected an integer from " + std::to_string(minimum) + " to " + std::to_string(maximum) + ", got " +
                      std::to_string(number));
  }
  return number;
}

double read_positive_seconds(const nlohmann::json& value, const std::string& path) {
  const double seconds = read_finite_number(value, path);
  if (!(seconds > 0.0)) fail_at(path, "expected a time in seconds above 0, got " + value.dump());
  return seconds;
}

std::string read_string(const nlohmann::json& value, const std::string& path) {
  if (!value.is_string()) fail_at(path, "expected a string" + got(value));
  return value.get<std::string>();
}

bool read_bool(const nlohmann::json& value, const std::string& path) {
  if (!value.is_boolean()) fail_at(path, "expected true or false" + got(value));
  return value.get<bool>();
}

ObjectReader::ObjectReader(const nlohmann::json& value, std::string path) : value_(value), path_(std::move(path)) {
  if (!value_.is_object()) fail_at(path_, "expected an object" + got(value_));
}

const nlohmann::json& ObjectReader::required(std::string_view key) {
  const auto found = value_.find(key);
  if (found == value_.end()) fail_at(path_of(key), "missing field");
  seen_.emplace(key);
  return *found;
}

const nlohmann::json* ObjectReader::optional(std::string_view key) {
  const auto found = value_.find(key);
  if (found == value_.end()) return nullptr;
  seen_.emplace(key);
  return found->is_null() ? nullptr : &*found;
}

std::string ObjectReader::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string ObjectReader::either(std::string_view key, std::string_view first, std::string_view second) {
  std::string value = text(key);
  if (value != first && value != second) {
    fail_at(path_of(key),
            "expected \"" + std::string(first) + "\" or \"" + std::string(second) + "\", got \"" + value + "\"");
  }
  return value;
}

void ObjectReader::finish() const {
  for (const auto& [key, unused] : value_.items()) {
    if (seen_.find(key) == seen_.end()) fail_at(path_of(key), "unknown field");
  }
}

}  // namespace ampbench::reports::detail
