// require_derived_figures_match (derived_figures.h): every figure a report stores that its samples
// determine is recomputed by the functions that wrote it and compared.
#include <cmath>
#include <cstdio>
#include <string>

#include "ampbench/reports/derived_figures.h"
#include "ampbench/reports/json_reader.h"
#include "ampbench/reports/roofline.h"

namespace ampbench::reports {
namespace {

// Written with the shortest text that reads back exactly, so a figure recomputed from the same
// samples is equal up to the last bits of a different compiler's arithmetic.
constexpr double kRelativeTolerance = 1e-9;

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// A figure the JSON could not hold (an unbounded interval is written as null) matches any other
// figure that is not finite.
void require_equal(double stored, double derived, const std::string& path) {
  if (!std::isfinite(stored) && !std::isfinite(derived)) return;
  const double scale = std::max(std::fabs(stored), std::fabs(derived));
  if (std::fabs(stored - derived) <= kRelativeTolerance * scale) return;
  detail::fail_at(path, number_text(stored) + " is stored, but the report's samples give " + number_text(derived) +
                            " (a derived figure must agree with the samples it summarises)");
}

void require_equal(std::int64_t stored, std::int64_t derived, const std::string& path) {
  require_equal(static_cast<double>(stored), static_cast<double>(derived), path);
}

void require_equal(const SampleSummary& stored, const SampleSummary& derived, const std::string& path) {
  require_equal(stored.median, derived.median, path + ".median");
  require_equal(stored.ci_low, derived.ci_low, path + ".ci_low");
  require_equal(stored.ci_high, derived.ci_high, path + ".ci_high");
  require_equal(stored.p10, derived.p10, path + ".p10");
  require_equal(stored.p90, derived.p90, path + ".p90");
  require_equal(stored.mean, derived.mean, path + ".mean");
  require_equal(stored.stddev, derived.stddev, path + ".stddev");
  require_equal(stored.relative_ci_half_width, derived.relative_ci_half_width, path + ".relative_ci_half_width");
}

void require_equal(const RoundEstimate& stored, const RoundEstimate& derived, const std::string& path) {
  require_equal(stored.rounds, derived.rounds, path + ".rounds");
  require_equal(stored.value, derived.value, path + ".value");
  require_equal(stored.ci_low, derived.ci_low, path + ".ci_low");
  require_equal(stored.ci_high, derived.ci_high, path + ".ci_high");
  require_equal(stored.relative_ci_half_width, derived.relative_ci_half_width, path + ".relative_ci_half_width");
}

void require_equal(const Ratio& stored, const Ratio& derived, const std::string& path) {
  require_equal(stored.value, derived.value, path + ".value");
  require_equal(stored.ci_low, derived.ci_low, path + ".ci_low");
  require_equal(stored.ci_high, derived.ci_high, path + ".ci_high");
}

// A stored ratio needs a derivable one: an AMP cell's speedup without a successful FP32 cell to
// be measured against is a figure from nowhere.
void require_equal(const std::optional<Ratio>& stored, const std::optional<Ratio>& derived, const std::string& path) {
  if (!stored) return;
  if (!derived) detail::fail_at(path, "is stored, but the report has no cell it can be derived from");
  require_equal(*stored, *derived, path);
}

void require_equal(const Divergence& stored, const Divergence& derived, const std::string& path) {
  require_equal(stored.steps, derived.steps, path + ".steps");
  require_equal(stored.final_evaluations, derived.final_evaluations, path + ".final_evaluations");
  require_equal(stored.final_relative_difference, derived.final_relative_difference,
                path + ".final_relative_difference");
  require_equal(stored.final_floor, derived.final_floor, path + ".final_floor");
  require_equal(stored.max_relative_difference, derived.max_relative_difference, path + ".max_relative_difference");
  require_equal(stored.ratio_to_floor, derived.ratio_to_floor, path + ".ratio_to_floor");
  if (stored.verdict != derived.verdict) {
    detail::fail_at(path + ".verdict", "\"" + std::string(to_string(stored.verdict)) +
                                           "\" is stored, but the numerics passes give \"" +
                                           std::string(to_string(derived.verdict)) + "\"");
  }
}

void require_step_figures(const CellResult& stored, const CellResult& derived, const std::string& path) {
  require_equal(stored.throughput.step_time_s, derived.throughput.step_time_s, path + ".throughput.step_time_s");
  require_equal(stored.throughput.samples_per_s, derived.throughput.samples_per_s, path + ".throughput.samples_per_s");
  require_equal(stored.throughput.tokens_per_s, derived.throughput.tokens_per_s, path + ".throughput.tokens_per_s");
  require_equal(stored.throughput.achieved_flops_per_s, derived.throughput.achieved_flops_per_s,
                path + ".throughput.achieved_flops_per_s");
  if (stored.rounds) {
    for (std::size_t round = 0; round < stored.rounds->step_time_s.size(); ++round) {
      require_equal(stored.rounds->step_time_s[round], derived.rounds->step_time_s[round],
                    path + ".rounds.step_time_s[" + std::to_string(round) + "]");
    }
    require_equal(stored.rounds->step_time, derived.rounds->step_time, path + ".rounds.step_time");
  }
  if (stored.data_parallel && !stored.data_parallel->allreduce_times_s.empty()) {
    require_equal(stored.data_parallel->allreduce_time_s, derived.data_parallel->allreduce_time_s,
                  path + ".data_parallel.allreduce_time_s");
  }
  if (stored.energy) {
    require_equal(stored.energy->joules_per_step, derived.energy->joules_per_step, path + ".energy.joules_per_step");
    require_equal(stored.energy->average_power_w, derived.energy->average_power_w, path + ".energy.average_power_w");
  }
}

// The share of the machine's measured GEMM peak (roofline.h) follows from the cell's rate and the
// report's peaks.
void require_fraction_of_peak(const CellResult& stored, const CellResult& derived, const std::string& path) {
  const auto& fraction = stored.throughput.fraction_of_peak;
  if (!fraction) return;
  if (!derived.throughput.fraction_of_peak) {
    detail::fail_at(path + ".throughput.fraction_of_peak",
                    "is stored, but the report's environment has no measured GEMM peak it can be derived from");
  }
  require_equal(*fraction, *derived.throughput.fraction_of_peak, path + ".throughput.fraction_of_peak");
}

// MFU follows from the cell's rate and its GPU's datasheet peak (roofline.h).
void require_mfu(const CellResult& stored, const CellResult& derived, const std::string& path) {
  if (!stored.throughput.mfu) return;
  if (!derived.throughput.mfu) {
    detail::fail_at(path + ".throughput.mfu",
                    "is stored, but the cell's device has no datasheet peak to derive it from");
  }
  require_equal(*stored.throughput.mfu, *derived.throughput.mfu, path + ".throughput.mfu");
}

void require_relations(const CellResult& stored, const CellResult& derived, const std::string& path) {
  require_fraction_of_peak(stored, derived, path);
  require_mfu(stored, derived, path);
  if (stored.rounds && stored.rounds->slow_machine_factor) {
    require_equal(stored.rounds->slow_machine_rounds, derived.rounds->slow_machine_rounds,
                  path + ".rounds.slow_machine_rounds");
  }
  if (stored.rounds && stored.rounds->device) {
    require_equal(stored.rounds->device->throttled_rounds, derived.rounds->device->throttled_rounds,
                  path + ".rounds.device.throttled_rounds");
  }
  require_equal(stored.speedup_vs_fp32, derived.speedup_vs_fp32, path + ".speedup_vs_fp32");
  require_equal(stored.energy_ratio_vs_fp32, derived.energy_ratio_vs_fp32, path + ".energy_ratio_vs_fp32");
  require_equal(stored.memory_ratio_vs_fp32, derived.memory_ratio_vs_fp32, path + ".memory_ratio_vs_fp32");
  if (stored.divergence) {
    if (!derived.divergence) {
      detail::fail_at(path + ".divergence", "is stored, but the report has no numerics passes it can be derived from");
    }
    require_equal(*stored.divergence, *derived.divergence, path + ".divergence");
  }
  if (stored.data_parallel) {
    require_equal(stored.data_parallel->scaling_efficiency, derived.data_parallel->scaling_efficiency,
                  path + ".data_parallel.scaling_efficiency");
  }
}

}  // namespace

void require_derived_figures_match(const Report& report) {
  Report derived = report;
  for (auto& cell : derived.cells) {
    if (cell.status != CellStatus::kOk) continue;
    derive_step_figures(cell);
    // Relations come only from relate_to_fp32, never from the file.
    cell.speedup_vs_fp32.reset();
    cell.memory_ratio_vs_fp32.reset();
    cell.energy_ratio_vs_fp32.reset();
    cell.divergence.reset();
    if (cell.data_parallel) cell.data_parallel->scaling_efficiency.reset();
  }
  relate_to_fp32(derived);
  fill_fractions_of_peak(derived);
  // Every cell's own figures first: a relation between two cells is judged on samples that hold.
  for (std::size_t i = 0; i < report.cells.size(); ++i) {
    if (report.cells[i].status == CellStatus::kOk)
      require_step_figures(report.cells[i], derived.cells[i], "cells[" + std::to_string(i) + "]");
  }
  for (std::size_t i = 0; i < report.cells.size(); ++i) {
    if (report.cells[i].status == CellStatus::kOk)
      require_relations(report.cells[i], derived.cells[i], "cells[" + std::to_string(i) + "]");
  }
}

}  // namespace ampbench::reports
