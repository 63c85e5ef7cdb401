// Two reports side by side, cell by cell: the change in median step time with its interval, a
// Mann-Whitney U test on the per-step samples (what Google Benchmark's compare.py runs), and the
// change in peak memory and loss divergence. `check` judges these comparisons; run_series.h reads
// two or more reports this way and renders them (`ampbench compare`).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/reports/report.h"
#include "ampbench/reports/stats.h"

namespace ampbench::reports {

// What identifies a cell across runs: a 2-rank cell only ever meets a 2-rank cell.
struct CellKey {
  std::string workload;
  std::string mode;
  std::string device;
  std::string preset;
  std::int64_t ranks = 1;
  auto operator<=>(const CellKey&) const = default;
  // The one name of a cell (Finding::cell, explain --cell, check, compare):
  // "simple_net/fp16/cpu/default" (empty parts left out), "simple_net/fp16/cpu/default/ranks=2" on
  // more than one rank, so that one-rank names stay those of reports from before ranks.
  [[nodiscard]] std::string label() const;
};
[[nodiscard]] CellKey key_of(const CellResult& cell);

// A cell's throttled rounds out of its rounds, and what throttled them (the most frequent first).
struct ThrottledRounds {
  std::int64_t throttled = 0;
  std::int64_t rounds = 0;
  std::vector<std::string> causes;
};

struct CellComparison {
  CellKey key;
  // Both cells ran and have step-time samples; otherwise `note` says why and the figures are unset.
  bool comparable = false;
  std::string note;
  // The current cell failed where the baseline's ran: a regression whatever the figures say.
  bool failed_only_in_current = false;
  SampleSummary base_time;  // recomputed from the samples, not copied from the file
  SampleSummary current_time;
  Ratio time_ratio;    // current median / base median, bootstrap 95% CI
  UTestResult u_test;  // current vs base step times
  // By rounds, when both cells have them: each round's time divided by that round's machine probe
  // (fixed work timed in the same rotation, Rounds::probe), so a machine that is slower today as a whole
  // cancels out; Welch's t test on the logs. The raw round times' change and the probe's change
  // are kept beside it, to show how much of the raw change was the machine.
  std::optional<RoundComparison> normalised_rounds;
  std::int64_t base_rounds = 0;
  std::int64_t current_rounds = 0;
  std::optional<RoundComparison> raw_rounds;
  std::optional<RoundComparison> probe_rounds;
  // Set when both cells have rounds but timed different machine probes (a report from before the
  // probe changed): no per-probe figures then, and this says which probes.
  std::string probe_mismatch;
  std::int64_t base_peak_bytes = 0;
  std::int64_t current_peak_bytes = 0;
  std::optional<double> memory_ratio;  // current / base peak tensor bytes; absent when base is 0
  // Current over baseline joules per timed step, over each run's rounds in the usual state (as its
  // speedups leave out slow and throttled rounds), Welch's t on logs; absent unless both measured it.
  std::optional<RoundComparison> energy;
  // Each side's throttled rounds (a GPU's, DeviceRounds); absent without the GPU's state.
  std::optional<ThrottledRounds> base_throttled;
  std::optional<ThrottledRounds> current_throttled;
  // The first step of the current cell whose gradient norm was not finite although the GradScaler
  // (if any) did not skip it: the optimizer stepped on inf/NaN gradients.
  std::optional<std::int64_t> current_nonfinite_grad_norm_step;
  std::optional<Divergence> base_divergence;
  std::optional<Divergence> current_divergence;
  // current - base window mean relative difference; absent unless both cells have a divergence.
  std::optional<double> divergence_change;
  // Workers of this cell's workload that died in either run, and what ran again alone in their
  // place ("current: worker 2 (fp32, bf16 together) ended: ...; ran again alone"): the figures
  // then include a rerun in another arrangement.
  std::vector<std::string> reruns;
};

struct ReportComparison {
  std::vector<CellComparison> cells;  // in the current report's order
  std::vector<CellKey> only_in_base;
  std::vector<CellKey> only_in_current;
};

[[nodiscard]] ReportComparison compare_reports(const Report& base, const Report& current);

}  // namespace ampbench::reports
