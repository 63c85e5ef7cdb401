// The NVTX ranges Nsight Systems would show for a real `ampbench run`, captured through an NVTX
// injection library (nvtx_range_recorder.cpp) instead of a profiler: one "ampbench" domain, a cell
// range around every step's phases in training order, pushes and pops balanced and nested. The
// cell runs in its own process, which inherits the injection's environment.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/process.h"
#include "support/scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using ampbench::testing::run_process;

struct RangeEvent {
  bool push = false;
  std::string domain;
  std::string message;  // pushes only
};

struct OpenRange {
  std::string domain;
  std::string message;
};

// One thread's ranges, as the injection logged them.
using ThreadEvents = std::vector<RangeEvent>;

std::map<std::string, ThreadEvents> read_range_log(const fs::path& path) {
  std::map<std::string, ThreadEvents> by_thread;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string pid, tid, kind;
    RangeEvent event;
    fields >> pid >> tid >> kind >> event.domain;
    EXPECT_TRUE(kind == "push" || kind == "pop") << "malformed line: " << line;
    event.push = kind == "push";
    if (event.push) {
      std::getline(fields >> std::ws, event.message);
    }
    by_thread[pid + "/" + tid].push_back(std::move(event));
  }
  return by_thread;
}

// The phases pushed directly inside `cell`, in order; checks nesting and balance on the way.
std::vector<std::string> phases_inside(const ThreadEvents& events, const std::string& cell, bool& saw_cell) {
  std::vector<OpenRange> open;
  std::vector<std::string> phases;
  for (const auto& event : events) {
    if (event.push) {
      if (event.domain == "ampbench" && event.message == cell) saw_cell = true;
      const bool inside_cell = std::any_of(open.begin(), open.end(), [&](const OpenRange& range) {
        return range.domain == "ampbench" && range.message == cell;
      });
      EXPECT_TRUE(inside_cell || event.domain != "ampbench" || event.message == cell)
          << "ampbench range '" << event.message << "' outside the cell range";
      if (!open.empty() && open.back().domain == "ampbench" && open.back().message == cell) {
        EXPECT_EQ(event.domain, "ampbench") << event.message;
        phases.push_back(event.message);
      }
      open.push_back({event.domain, event.message});
      continue;
    }
    if (open.empty()) {
      ADD_FAILURE() << "pop in domain " << event.domain << " with no open range";
      continue;
    }
    EXPECT_EQ(event.domain, open.back().domain) << "pop closes a range of another domain: " << open.back().message;
    open.pop_back();
  }
  EXPECT_TRUE(open.empty()) << open.size() << " range(s) never popped, innermost: " << open.back().message;
  return phases;
}

class NvtxRanges : public ::testing::Test {
 protected:
  ampbench::testing::ScratchDir dir_;
};

TEST_F(NvtxRanges, AnFp16CellShowsEachStepsPhasesInsideTheCellRange) {
  const fs::path log = dir_ / "ranges.log";
  constexpr int kSteps = 3;
  constexpr int kWarmup = 1;
  const auto result = run_process(
      {AMPBENCH_CLI,   "run",
       "--workloads",  "simplenet",
       "--modes",      "fp16",
       "--preset",     "seed",
       "--device",     "cpu",
       "--warmup",     std::to_string(kWarmup),
       "--min-steps",  std::to_string(kSteps),
       "--steps",      std::to_string(kSteps),
       "--replicates", "1",
       "--out",        (dir_ / "out").string()},
      {std::string("NVTX_INJECTION64_PATH=") + AMPBENCH_NVTX_RECORDER, "AMPBENCH_NVTX_RANGE_LOG=" + log.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_TRUE(fs::exists(log)) << "the injection library was not loaded (no range log)";

  const std::string cell = "cell simplenet/fp16/cpu";
  bool saw_cell = false;
  std::vector<std::string> phases;
  for (const auto& [thread, events] : read_range_log(log)) {
    SCOPED_TRACE("thread " + thread);
    const auto inside = phases_inside(events, cell, saw_cell);
    phases.insert(phases.end(), inside.begin(), inside.end());
  }
  ASSERT_TRUE(saw_cell) << "no '" << cell << "' range in the ampbench domain";

  // fp16 with a GradScaler: every step, warm-up and timed (profiled steps too, if any), runs the
  // five phases in this order.
  const std::vector<std::string> step = {"forward", "backward", "unscale", "optimizer step", "scaler update"};
  ASSERT_FALSE(phases.empty());
  ASSERT_EQ(phases.size() % step.size(), 0U) << "a step with missing or extra phases";
  EXPECT_GE(phases.size() / step.size(), static_cast<std::size_t>(kWarmup + kSteps));
  for (std::size_t i = 0; i < phases.size(); ++i) {
    EXPECT_EQ(phases[i], step[i % step.size()]) << "phase " << i % step.size() << " of step " << i / step.size();
  }
}

}  // namespace
