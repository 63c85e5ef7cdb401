// The thresholds `check` judges with, as flags: `compare` takes the same ones so that its verdicts
// are the gate's for the same settings; and --allow-different-ranks, which both take too.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ampbench/reports/check.h"
#include "ampbench/reports/run_series.h"

namespace ampbench::cli {

struct ThresholdFlags {
  std::string max_slowdown = "5%";
  std::string max_memory_growth = "5%";
  std::string max_energy_growth = "5%";
  std::string max_divergence;
  std::string alpha = "0.01";
};

void add_threshold_options(CLI::App& command, ThresholdFlags& flags);
// A UsageError naming the flag for a value check cannot judge with.
[[nodiscard]] reports::CheckOptions check_options_from(const ThresholdFlags& flags);

void add_allow_different_ranks_flag(CLI::App& command, bool& allow);
// Unless `allow`, a UsageError naming each run's world size and --allow-different-ranks when the
// runs' world sizes (config.ranks) differ.
void require_same_world_size(const std::vector<reports::SeriesInput>& runs, bool allow);

}  // namespace ampbench::cli
