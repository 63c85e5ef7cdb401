// The settings of a run, declared once: their defaults (the initialisers below), their ranges
// (validate_run_config) and one table of fields through which the CLI's flags and --help, a
// --config file and the report's "config" object are all read and written. Torch-free, so the
// report readers share it; the harness adds what needs the machine (devices, workloads, modes).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ampbench/reports/allocator_policy.h"
#include "ampbench/reports/device_state.h"
#include "ampbench/reports/grad_compression.h"
#include "ampbench/reports/graph_execution.h"

namespace ampbench::reports {

// A setting that is out of range, of the wrong type or unparseable. The message names the flag
// (or the config file and key) and the value; the CLI prints it as one line and exits 2.
class SettingError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct RunConfig {
  std::vector<std::string> workloads;  // empty: every registered workload
  std::vector<std::string> modes;      // empty: fp32, fp16, bf16, and tf32 on a GPU
  std::string device = "auto";         // resolved by the harness to "cpu" or "cuda:N"
  std::string preset = "auto";         // a name, or auto (the device's); the harness resolves it
  std::int64_t warmup = 3;             // untimed steps per mode, bounded in time by time_cap_s too
  std::int64_t min_steps = 10;         // timed steps per mode before the precision target may stop
  std::int64_t max_steps = 500;        // timed steps per mode at most
  double max_noise = 0.02;             // target: 95% CI half-width over rounds, relative
  double time_cap_s = 6.0;             // seconds of timed steps per mode at most
  std::int64_t seed = 0;
  int threads = 0;                    // intra-op CPU threads; 0 keeps LibTorch's choice
  std::optional<std::int64_t> batch;  // overrides the presets' batch size
  bool isolate = true;                // each workload's cells in a child process
  std::int64_t min_rounds = 5;        // interleaved rounds before the precision target may stop
  std::int64_t round_steps = 0;       // timed steps of each mode per round; 0: sized by time
  // Worker processes per workload (replicates), run in turn with the other workloads' so they
  // spread over the run; the steps and the time cap are shared out among them, and intervals are
  // over them. 1: one process, intervals over its rounds (they then miss the process's own speed).
  std::int64_t replicates = 5;
  // Steps of the numerics pass every mode trains (divergence comes from it, not from the timed
  // steps); 0 turns it off. Absent: the preset's default, which the harness fills in.
  std::optional<std::int64_t> numerics_steps = std::nullopt;
  double worker_timeout_s = 0.0;  // kill a worker after this long; 0: from the time cap
  bool cupti = true;              // ampbench's own CUPTI collection on GPUs (off under Nsight)
  bool breakdown = true;          // profile where each cell's step time goes (explain), after the timed steps
  // CUDA graphs (docs/gpu.md): each mode's whole step captured once after warm-up and replayed.
  GraphExecution graphs = GraphExecution::kOff;
  // Data parallel (docs/distributed.md): the world size. 1 is one process; N > 1
  // trains each cell on N ranks through c10d (and on one rank too, for the scaling efficiency).
  // Under torchrun the harness fills it from WORLD_SIZE.
  std::int64_t ranks = 1;
  GradCompression grad_compression = GradCompression::kNone;  // the dtype the gradients' all-reduce crosses in
  double rank_timeout_s = 60.0;  // c10d's timeout: rendezvous, and a collective that a dead rank stalls
  // The malloc every worker process runs under (docs/running.md): glibc-fixed by default,
  // the policy whose step times did not depend on what shared the process (docs/performance.md).
  AllocatorPolicy allocator = AllocatorPolicy::kGlibcFixed;
  // A GPU round whose lowest SM clock fell below this percentage of the chip's maximum is throttled
  // and left out of the speedups (device_state.h).
  double throttle_threshold_percent = kDefaultThrottleThresholdPercent;
};

// Upper bounds that keep a typo from costing hours or gigabytes (docs/failures.md).
inline constexpr std::int64_t kMaxStepsPerCell = 1'000'000;
inline constexpr std::int64_t kMaxWarmupSteps = 100'000;
inline constexpr std::int64_t kMaxRounds = 10'000;
inline constexpr std::int64_t kMaxReplicates = 100;
inline constexpr int kMaxThreads = 1024;
inline constexpr std::int64_t kMaxBatch = 1 << 20;
inline constexpr double kMaxTimeCapSeconds = 86'400.0;
inline constexpr std::int64_t kMaxRanks = 1024;

// One setting: where it lives in each form, and how to move it between them.
struct RunConfigField {
  std::string key;       // in report.json's "config" object
  std::string file_key;  // in a --config file (the same as key but for "steps")
  std::string flag;      // "--steps"
  // The flag takes no value and turns the setting off ("--no-isolate"): a setting on by default.
  bool flag_turns_off = false;
  std::string help;               // without the default, which --help appends from RunConfig{}
  bool optional_on_read = false;  // may be absent from a report (older ones lack it): the default then
  // What an older report that lacks the key ran with, as flag text, when that is not the default.
  std::string value_when_absent;
  std::function<nlohmann::json(const RunConfig&)> write;
  // Throws SettingError with what was expected ("an integer", ...), naming nothing: callers add
  // the culprit, since a file and a flag name it differently.
  std::function<void(RunConfig&, const nlohmann::json&)> read;
  std::function<void(RunConfig&, const std::string&)> parse;  // a flag's text, strictly
  std::function<std::string(const RunConfig&)> show;          // for --help; empty: no default shown
  const void* member = nullptr;  // its member in detail::member_anchor(): how flag_of finds the field
};

[[nodiscard]] const std::vector<RunConfigField>& run_config_fields();

namespace detail {
// A RunConfig whose members' addresses name the fields (flag_of).
[[nodiscard]] const RunConfig& member_anchor();
// The flag of the field whose member in member_anchor() is at `member`; std::logic_error if none.
[[nodiscard]] const std::string& flag_at(const void* member);
}  // namespace detail

// The flag of a setting as the field table spells it, for errors: flag_of(&RunConfig::max_steps)
// is "--steps". No flag is spelled anywhere else.
template <typename T>
[[nodiscard]] const std::string& flag_of(T RunConfig::*member) {
  return detail::flag_at(&(detail::member_anchor().*member));
}

// The layers of a run's settings: the defaults, then a --config file's object (file_name names it
// in errors), then flags as (field, text). A flag given for max_steps but none for min_steps
// lowers min_steps to it (`--steps 3` alone is not an error about a flag never given). Validates.
[[nodiscard]] RunConfig layer_run_config(const nlohmann::json* file, const std::string& file_name,
                                         const std::vector<std::pair<const RunConfigField*, std::string>>& flags);

// Ranges and consistency, each error naming the flag. Does not resolve names against the machine.
void validate_run_config(const RunConfig& config);

// The report's "config" object, through the same table; reading refuses unknown and missing keys
// (ReportError naming the path).
[[nodiscard]] nlohmann::json run_config_to_json(const RunConfig& config);
[[nodiscard]] RunConfig run_config_from_json(const nlohmann::json& in, const std::string& path);

}  // namespace ampbench::reports
