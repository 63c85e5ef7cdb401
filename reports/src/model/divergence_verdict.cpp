#include "ampbench/reports/divergence_verdict.h"

#include <ostream>

#include "ampbench/reports/enum_names.h"

namespace ampbench::reports {

std::string_view to_string(DivergenceVerdict verdict) {
  switch (verdict) {
    case DivergenceVerdict::kWithinFloor:
      return "within the noise floor";
    case DivergenceVerdict::kAboveFloor:
      return "above the floor";
    case DivergenceVerdict::kDiverged:
      return "diverged";
    case DivergenceVerdict::kNonFiniteLoss:
      return "non-finite loss";
  }
  return "unknown";
}

std::optional<DivergenceVerdict> divergence_verdict_named(std::string_view name) {
  return detail::value_named(name, kDivergenceVerdicts);
}

std::ostream& operator<<(std::ostream& out, DivergenceVerdict verdict) { return out << to_string(verdict); }

}  // namespace ampbench::reports
