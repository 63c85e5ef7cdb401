// Private: when the timed phase of a cell may end. Noise-driven, as nvbench does it: stop once the
// median's 95% CI half-width is within max_noise of the median, or at a time or step cap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ampbench::harness::detail {

struct StoppingRule {
  std::int64_t min_steps;
  std::int64_t max_steps;
  double max_noise;
  double time_cap_s;

  // The reason to stop, or nothing to keep going. samples: the step times known so far; on a GPU
  // they lag behind steps_run, the steps launched (which the step cap counts).
  [[nodiscard]] std::optional<std::string> reason_to_stop(const std::vector<double>& samples, std::int64_t steps_run,
                                                          double elapsed_s) const;
};

}  // namespace ampbench::harness::detail
