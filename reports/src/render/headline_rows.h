// The report's answer first: per workload, each low-precision mode against FP32 in one line (its
// speedup with the interval, its memory, its divergence verdict), the fastest first, and the
// relative step time and memory the "at a glance" charts draw. Every renderer reads these.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

struct ModeHeadline {
  std::string mode;
  bool failed = false;
  std::optional<Ratio> speedup;  // FP32's step time / this mode's
  std::optional<double> memory_ratio;
  std::optional<Divergence> divergence;
};

struct WorkloadHeadline {
  std::string workload;             // "simplecnn", or "simplecnn ranks=2" for a data-parallel cell
  std::vector<ModeHeadline> modes;  // every mode but FP32: the fastest first, failed cells last
};

// One entry per workload (and rank count) that has a mode besides FP32, in the report's order.
[[nodiscard]] std::vector<WorkloadHeadline> workload_headlines(const Report& report);

// "bf16 1.16x [1.07, 1.26] faster, 0.75x the memory, loss within the noise floor; fp16 ...":
// "faster" or "slower" only where the interval leaves 1 out, "no clear difference" otherwise.
[[nodiscard]] std::string headline_text(const WorkloadHeadline& headline);

// One row per cell of the at-a-glance chart: a mode's step time and peak memory relative to FP32's
// (FP32 itself at 1), the step time with its interval.
struct GlanceRow {
  std::string workload;
  std::string mode;
  std::optional<Ratio> relative_time;
  std::optional<double> relative_memory;
};
[[nodiscard]] std::vector<GlanceRow> glance_rows(const Report& report);

}  // namespace ampbench::reports::detail
