#include "run_progress.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <utility>

namespace ampbench::cli {
namespace {

std::string workload_prefix(const harness::RunEvent& event) {
  return "[" + std::to_string(event.workload_index + 1) + "/" + std::to_string(event.workload_count) + "] " +
         event.workload;
}

// "[1/3] simplecnn (worker 2/5)" while one of several worker processes runs.
std::string prefix(const harness::RunEvent& event) {
  if (event.replicate_count < 2) return workload_prefix(event);
  return workload_prefix(event) + " (worker " + std::to_string(event.replicate + 1) + "/" +
         std::to_string(event.replicate_count) + ")";
}

// "[1/3] simplecnn: round 4, 36 steps per mode, 5.1 s of at most 18 s" while timing.
std::string progress_text(const harness::RunEvent& event) {
  const auto& progress = event.progress;
  if (progress.planned_steps > 0) {  // "[2/3] simplecnn: numerics fp16, step 24 of 48"
    return prefix(event) + ": " + harness::describe(progress) + ", step " + std::to_string(progress.timed_steps) +
           " of " + std::to_string(progress.planned_steps);
  }
  if (progress.stage != harness::WorkloadStage::kRounds)
    return prefix(event) + ": " + harness::describe(progress) + " ...";
  char text[160];
  std::snprintf(text, sizeof text, ": round %lld, %lld steps per mode, %.1f s of at most %.0f s",
                static_cast<long long>(progress.round), static_cast<long long>(progress.timed_steps),
                progress.elapsed_s, progress.time_cap_s);
  return prefix(event) + text;
}

std::string finished_text(const harness::RunEvent& event) {
  const auto& cell = *event.cell;
  const auto ranks = cell.ranks > 1 ? " on " + std::to_string(cell.ranks) + " ranks" : std::string();
  return workload_prefix(event) + " " + cell.mode + " " + cell.device + ranks + ": " +
         (cell.status == reports::CellStatus::kOk ? reports::describe(cell.throughput.stop_reasons)
                                                  : "FAILED: " + cell.error);
}

}  // namespace

harness::RunObserver stderr_progress(bool terminal, std::string first_line) {
  return [terminal, first_line = std::move(first_line)](const harness::RunEvent& event) {
    using Kind = harness::RunEvent::Kind;
    std::string line;
    bool replace = false;
    switch (event.kind) {
      case Kind::kGemmPeakStarted:
        if (!first_line.empty()) std::cerr << first_line << "\n";
        line = "measuring the GEMM peak ...";
        replace = true;
        break;
      case Kind::kGemmPeakMeasured: {
        char text[64];
        std::snprintf(text, sizeof text, "GEMM peak measured in %.2f s", event.seconds);
        line = text;
        break;
      }
      case Kind::kWorkloadProgress:
        line = progress_text(event);
        replace = true;
        break;
      case Kind::kNumericsFinished: {
        char text[96];
        std::snprintf(text, sizeof text, ": numerics pass (divergence) took %.1f s", event.seconds);
        line = workload_prefix(event) + text;
        break;
      }
      case Kind::kCellFinished:
        line = finished_text(event);
        break;
    }
    if (terminal) {
      std::cerr << "\r\033[K" << line << (replace ? "" : "\n") << std::flush;
    } else if (!replace) {
      std::cerr << line << "\n";
    }
  };
}

}  // namespace ampbench::cli
