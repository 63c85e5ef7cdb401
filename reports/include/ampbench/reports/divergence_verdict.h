// How far an AMP cell's numerics landed from FP32's, as a judgement. Code compares the enum; the
// names exist only for report.json, the renderers and printing.
#pragma once

#include <array>
#include <iosfwd>
#include <optional>
#include <string_view>

namespace ampbench::reports {

enum class DivergenceVerdict {
  kWithinFloor,    // no farther from FP32 than a change that should not matter (the floor run)
  kAboveFloor,     // farther, but not clearly beyond what such a change does
  kDiverged,       // beyond the floor by more than Divergence::floor_multiple
  kNonFiniteLoss,  // an AMP eval loss became NaN or inf where FP32's stayed finite
};

inline constexpr std::array<DivergenceVerdict, 4> kDivergenceVerdicts{
    DivergenceVerdict::kWithinFloor, DivergenceVerdict::kAboveFloor, DivergenceVerdict::kDiverged,
    DivergenceVerdict::kNonFiniteLoss};

// The name report.json uses: "within the noise floor", "above the floor", "diverged", "non-finite loss".
[[nodiscard]] std::string_view to_string(DivergenceVerdict verdict);
// The verdict of that name; nullopt for any other text (such as an older version's "within bound").
[[nodiscard]] std::optional<DivergenceVerdict> divergence_verdict_named(std::string_view name);
// Diverged or non-finite: what `check` fails on when the baseline's was neither.
[[nodiscard]] constexpr bool is_failure(DivergenceVerdict verdict) {
  return verdict == DivergenceVerdict::kDiverged || verdict == DivergenceVerdict::kNonFiniteLoss;
}

std::ostream& operator<<(std::ostream& out, DivergenceVerdict verdict);

}  // namespace ampbench::reports
