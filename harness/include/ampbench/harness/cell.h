// A cell is one (workload, mode, device, preset) measured by the runner, plus how to measure it.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ampbench::harness {

struct CellSpec {
  std::string workload;
  std::string mode;
  std::string device = "cpu";  // "cpu" or "cuda:N"
  std::string preset = "default";
  std::int64_t warmup = 3;       // excluded from timing, included in the loss curve
  std::int64_t min_steps = 10;   // timed steps before the noise target may stop the cell
  std::int64_t max_steps = 500;  // timed steps at most
  double max_noise = 0.02;       // stop once the median's 95% CI half-width is within this
  double time_cap_s = 6.0;       // ...or once the timed steps took this long
  std::uint64_t seed = 0;
  int threads = 0;  // intra-op threads; 0 keeps LibTorch's default
  std::optional<std::int64_t> batch;
  // Steps (0-based, warm-up included) whose loss is multiplied by +inf before backward: forces
  // the non-finite gradients that a GradScaler must skip. For tests and demonstrations.
  std::vector<std::int64_t> inject_overflow_steps;
};

void to_json(nlohmann::json& out, const CellSpec& spec);
void from_json(const nlohmann::json& in, CellSpec& spec);

}  // namespace ampbench::harness
