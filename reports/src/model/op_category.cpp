#include "ampbench/reports/op_category.h"

#include <utility>
#include <vector>

#include "ampbench/reports/enum_names.h"

namespace ampbench::reports {

std::string_view to_string(OpFamily family) {
  switch (family) {
    case OpFamily::kMatmul:
      return "matmul/conv";
    case OpFamily::kCasts:
      return "casts";
    case OpFamily::kKeptInFloat32:
      return "kept in float32";
    case OpFamily::kElementwise:
      return "elementwise";
    case OpFamily::kOptimizer:
      return "optimizer";
    case OpFamily::kGradScaler:
      return "GradScaler";
    case OpFamily::kRest:
      return "rest (autograd, views, host)";
  }
  return "unknown";
}

OpCategory matmul_category(std::string dtype) {
  return {OpFamily::kMatmul, dtype.empty() ? std::string("float32") : std::move(dtype)};
}

std::string to_string(const OpCategory& category) {
  const std::string family(to_string(category.family));
  return category.family == OpFamily::kMatmul ? family + " " + category.dtype : family;
}

std::optional<OpCategory> op_category_named(std::string_view name) {
  const auto matmul = std::string(to_string(OpFamily::kMatmul)) + " ";
  if (name.starts_with(matmul)) {
    const auto dtype = name.substr(matmul.size());
    if (dtype.empty() || dtype.find(' ') != std::string_view::npos) return std::nullopt;
    return matmul_category(std::string(dtype));
  }
  const auto family = detail::value_named(name, kOpFamilies);
  if (!family || *family == OpFamily::kMatmul) return std::nullopt;
  return OpCategory{*family, {}};
}

std::string op_category_names() {
  std::vector<std::string_view> names;
  const auto matmul = std::string(to_string(OpFamily::kMatmul)) + " DTYPE";
  for (const auto family : kOpFamilies) names.push_back(family == OpFamily::kMatmul ? matmul : to_string(family));
  return detail::alternatives(names);
}

}  // namespace ampbench::reports
