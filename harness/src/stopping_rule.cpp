#include "stopping_rule.h"

#include "ampbench/reports/stats.h"

namespace ampbench::harness::detail {

std::optional<std::string> StoppingRule::reason_to_stop(const std::vector<double>& samples, std::int64_t steps_run,
                                                        double elapsed_s) const {
  const auto count = static_cast<std::int64_t>(samples.size());
  if (steps_run >= max_steps) return "step cap";
  if (count >= min_steps && reports::summarize(samples).relative_ci_half_width <= max_noise) {
    return "precision reached";
  }
  // The time cap wins over min_steps: a very slow cell (AMP on a CPU without low-precision GEMM)
  // still ends, with the precision it reached recorded next to it.
  if (elapsed_s >= time_cap_s && count >= 2) return "time cap";
  return std::nullopt;
}

}  // namespace ampbench::harness::detail
