// Builds the configuration image the range profiler needs, on the host alone: CUPTI's profiler
// host API knows every supported chip by name, so this works (and is tested) without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profile/cupti/requires_cuda.h"

namespace ampbench::harness::cupti {

struct ConfigImage {
  std::vector<std::uint8_t> bytes;
  int passes = 0;  // how many times the profiled work must be replayed to collect every metric
};

// Schedules `metric_names` for `chip` (as CUPTI names it). Throws CuptiCallFailed (a
// std::runtime_error) whose message names the chip, and the metric CUPTI refused if one was.
[[nodiscard]] ConfigImage build_config_image(std::string_view chip, const std::vector<std::string>& metric_names);

}  // namespace ampbench::harness::cupti
