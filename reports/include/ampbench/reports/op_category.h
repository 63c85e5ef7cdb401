// Where a time breakdown puts an op's time (report.h TimeBreakdown): a family of ops and, for
// matrix products, the dtype they ran in. Code compares the family; the names ("matmul/conv
// bfloat16", "casts", ...) exist only for report.json, the tables and the findings' sentences.
#pragma once

#include <array>
#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace ampbench::reports {

enum class OpFamily {
  kMatmul,         // matrix products, convolutions, attention: by their input dtype
  kCasts,          // autocast's and the model's dtype conversions
  kKeptInFloat32,  // what autocast runs in float32: norms, softmax, losses, reductions
  kElementwise,    // the other ATen ops
  kOptimizer,      // the optimizer's step
  kGradScaler,     // unscale, the inf check and the scale's update
  kRest,           // the autograd engine, views, allocation, host code between ops
};

// In the order the breakdown table's columns take.
inline constexpr std::array<OpFamily, 7> kOpFamilies{
    OpFamily::kMatmul,    OpFamily::kCasts,      OpFamily::kKeptInFloat32, OpFamily::kElementwise,
    OpFamily::kOptimizer, OpFamily::kGradScaler, OpFamily::kRest};

// "matmul/conv", "casts", "kept in float32", "elementwise", "optimizer", "GradScaler",
// "rest (autograd, views, host)".
[[nodiscard]] std::string_view to_string(OpFamily family);

struct OpCategory {
  OpFamily family = OpFamily::kRest;
  // Matrix products only: LibTorch's name of their input dtype ("float32", "bfloat16"); else empty.
  std::string dtype;

  friend auto operator<=>(const OpCategory&, const OpCategory&) = default;
};

// A matrix product's category; an unrecorded dtype is float32's (the profiler names none for it).
[[nodiscard]] OpCategory matmul_category(std::string dtype);
// The family's name, and a matrix product's dtype after it: "matmul/conv bfloat16", "casts".
[[nodiscard]] std::string to_string(const OpCategory& category);
// The category of that name; nullopt for any other text (a matrix product needs its dtype).
[[nodiscard]] std::optional<OpCategory> op_category_named(std::string_view name);
// The names as an error offers them: "matmul/conv DTYPE, casts, ... or rest (autograd, views, host)".
[[nodiscard]] std::string op_category_names();

}  // namespace ampbench::reports
