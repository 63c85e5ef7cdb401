// The thresholds `check` judges with, as flags: `compare` takes the same ones so that its verdicts
// are the gate's for the same settings.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "ampbench/reports/check.h"

namespace ampbench::cli {

struct ThresholdFlags {
  std::string max_slowdown = "5%";
  std::string max_memory_growth = "5%";
  std::string max_divergence;
  std::string alpha = "0.01";
};

void add_threshold_options(CLI::App& command, ThresholdFlags& flags);
// A UsageError naming the flag for a value check cannot judge with.
[[nodiscard]] reports::CheckOptions check_options_from(const ThresholdFlags& flags);

}  // namespace ampbench::cli
