// The settings of `ampbench run`: defaults, then a --config JSON file, then flags, each layer
// overriding the last; validated before anything runs, so bad input writes nothing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "ampbench/reports/environment.h"
#include "ampbench/reports/report.h"

namespace ampbench::cli {

struct RunOptions {
  reports::RunConfig config;
  std::filesystem::path out = "ampbench-out";
};

// Values given on the command line; unset ones keep what the config file or the defaults say.
struct RunFlags {
  std::optional<std::string> workloads;  // comma-separated
  std::optional<std::string> modes;
  std::optional<std::string> device;
  std::optional<std::string> preset;
  std::optional<std::int64_t> steps;
  std::optional<std::int64_t> min_steps;
  std::optional<std::int64_t> warmup;
  std::optional<std::int64_t> seed;
  std::optional<std::int64_t> threads;
  std::optional<std::int64_t> batch;
  std::optional<double> max_noise;
  std::optional<double> time_cap_s;
  std::optional<std::string> out;
  std::optional<std::string> config_file;
  bool no_isolate = false;
};

// Throws UsageError naming the flag, file or key at fault.
[[nodiscard]] RunOptions resolve_run_options(const RunFlags& flags, const reports::Environment& environment);

}  // namespace ampbench::cli
