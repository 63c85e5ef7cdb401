#include "check_thresholds.h"

#include "exit_codes.h"
#include "report_inputs.h"

namespace ampbench::cli {

void add_threshold_options(CLI::App& command, ThresholdFlags& flags) {
  command.add_option("--max-slowdown", flags.max_slowdown, "Largest acceptable median step-time increase (default 5%)");
  command.add_option("--max-memory-growth", flags.max_memory_growth,
                     "Largest acceptable peak-memory increase (default 5%)");
  command.add_option("--max-energy-growth", flags.max_energy_growth,
                     "Largest acceptable increase of energy per step, where both runs measured it (default 5%)");
  command.add_option("--max-divergence", flags.max_divergence,
                     "Largest acceptable mean relative loss difference from FP32 over the final steps "
                     "(default: a regression when the divergence verdict got worse)");
  command.add_option("--alpha", flags.alpha,
                     "Significance level of the statistical tests, above 0 and at most 0.5 (default 0.01)");
}

reports::CheckOptions check_options_from(const ThresholdFlags& flags) {
  reports::CheckOptions options;
  options.max_slowdown = parse_fraction(flags.max_slowdown, "--max-slowdown");
  options.max_memory_growth = parse_fraction(flags.max_memory_growth, "--max-memory-growth");
  options.max_energy_growth = parse_fraction(flags.max_energy_growth, "--max-energy-growth");
  if (!flags.max_divergence.empty()) options.max_divergence = parse_fraction(flags.max_divergence, "--max-divergence");
  options.alpha = parse_number_in(flags.alpha, "--alpha", 0.0, 0.5);
  return options;
}

void add_allow_different_ranks_flag(CLI::App& command, bool& allow) {
  command.add_flag("--allow-different-ranks", allow,
                   "Read reports of different world sizes (--ranks) together anyway; cells still meet only cells of "
                   "the same ranks");
}

void require_same_world_size(const std::vector<reports::SeriesInput>& runs, bool allow) {
  if (allow) return;
  if (const auto difference = reports::world_size_difference(runs); !difference.empty()) {
    throw UsageError("the reports come from different world sizes (" + difference +
                     "); pass --allow-different-ranks to read them together anyway");
  }
}

}  // namespace ampbench::cli
