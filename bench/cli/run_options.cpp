#include "run_options.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "ampbench/harness/mode.h"
#include "ampbench/workloads/registry.h"
#include "exit_codes.h"

namespace ampbench::cli {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// --config FILE: every key must be known and of the right type; the message names both.
void apply_config_file(const std::string& file, RunOptions& options) {
  std::ifstream in(file);
  if (!in) throw UsageError("--config " + file + ": cannot read the file");
  const auto json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/false);
  if (json.is_discarded()) throw UsageError("--config " + file + ": not valid JSON");
  if (!json.is_object()) throw UsageError("--config " + file + ": expected a JSON object");
  auto& config = options.config;
  for (const auto& [key, value] : json.items()) {
    const auto wrong_type = [&](const char* expected) {
      return UsageError("--config " + file + ": '" + key + "' must be " + expected + ", got " + value.type_name());
    };
    const auto string_list = [&]() {
      if (!value.is_array() || !std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); })) {
        throw wrong_type("an array of strings");
      }
      return value.get<std::vector<std::string>>();
    };
    const auto integer = [&]() {
      if (!value.is_number_integer()) throw wrong_type("an integer");
      return value.get<std::int64_t>();
    };
    const auto number = [&]() {
      if (!value.is_number()) throw wrong_type("a number");
      return value.get<double>();
    };
    const auto text = [&]() {
      if (!value.is_string()) throw wrong_type("a string");
      return value.get<std::string>();
    };
    if (key == "workloads")
      config.workloads = string_list();
    else if (key == "modes")
      config.modes = string_list();
    else if (key == "device")
      config.device = text();
    else if (key == "preset")
      config.preset = text();
    else if (key == "steps")
      config.max_steps = integer();
    else if (key == "min_steps")
      config.min_steps = integer();
    else if (key == "warmup")
      config.warmup = integer();
    else if (key == "seed")
      config.seed = integer();
    else if (key == "threads")
      config.threads = static_cast<int>(integer());
    else if (key == "batch")
      config.batch = integer();
    else if (key == "max_noise")
      config.max_noise = number();
    else if (key == "time_cap_s")
      config.time_cap_s = number();
    else if (key == "out")
      options.out = text();
    else if (key == "isolate") {
      if (!value.is_boolean()) throw wrong_type("true or false");
      config.isolate = value.get<bool>();
    } else {
      throw UsageError("--config " + file + ": unknown key '" + key + "'");
    }
  }
}

void apply_flags(const RunFlags& flags, RunOptions& options) {
  auto& config = options.config;
  if (flags.workloads) config.workloads = split_list(*flags.workloads);
  if (flags.modes) config.modes = split_list(*flags.modes);
  if (flags.device) config.device = *flags.device;
  if (flags.preset) config.preset = *flags.preset;
  if (flags.steps) config.max_steps = *flags.steps;
  if (flags.min_steps) config.min_steps = *flags.min_steps;
  if (flags.warmup) config.warmup = *flags.warmup;
  if (flags.seed) config.seed = *flags.seed;
  if (flags.threads) config.threads = static_cast<int>(*flags.threads);
  if (flags.batch) config.batch = *flags.batch;
  if (flags.max_noise) config.max_noise = *flags.max_noise;
  if (flags.time_cap_s) config.time_cap_s = *flags.time_cap_s;
  if (flags.out) options.out = *flags.out;
  if (flags.no_isolate) config.isolate = false;
}

bool has_gpu(const reports::Environment& environment) {
  return std::any_of(environment.devices.begin(), environment.devices.end(),
                     [](const auto& device) { return device.name.rfind("cuda:", 0) == 0; });
}

// "auto" picks the first GPU, else the CPU; "cuda" means cuda:0. The device must exist.
std::string resolve_device(const std::string& requested, const reports::Environment& environment) {
  if (requested == "auto") return has_gpu(environment) ? "cuda:0" : "cpu";
  if (requested == "cpu") return requested;
  const std::string device = requested == "cuda" ? "cuda:0" : requested;
  const bool known = std::any_of(environment.devices.begin(), environment.devices.end(),
                                 [&](const auto& candidate) { return candidate.name == device; });
  if (device.rfind("cuda:", 0) != 0) throw UsageError("--device " + requested + ": expected auto, cpu, cuda or cuda:N");
  if (!known)
    throw UsageError("--device " + requested + ": " + (has_gpu(environment) ? "no such GPU" : environment.cuda_status));
  return device;
}

void require_positive(std::int64_t value, const char* flag) {
  if (value <= 0) throw UsageError(std::string(flag) + " must be positive, got " + std::to_string(value));
}

void validate(RunOptions& options, const reports::Environment& environment) {
  auto& config = options.config;
  config.device = resolve_device(config.device, environment);
  if (config.workloads.empty()) throw UsageError("--workloads: no workload given");
  for (const auto& workload : config.workloads) {
    const auto& known = workloads::known_workloads();
    if (std::none_of(known.begin(), known.end(), [&](const auto& info) { return info.name == workload; })) {
      throw UsageError("--workloads: unknown workload '" + workload + "' (see 'ampbench list')");
    }
  }
  if (config.modes.empty()) throw UsageError("--modes: no mode given");
  for (const auto& mode : config.modes) {
    try {
      if (harness::find_mode(mode).cuda_only && config.device == "cpu") {
        throw UsageError("--modes " + mode + ": needs a CUDA device, and the device is cpu");
      }
    } catch (const std::invalid_argument& error) {
      throw UsageError(std::string("--modes: ") + error.what());
    }
  }
  const auto& presets = workloads::known_presets();
  if (std::find(presets.begin(), presets.end(), config.preset) == presets.end()) {
    throw UsageError("--preset: unknown preset '" + config.preset + "' (seed, default or large)");
  }
  require_positive(config.max_steps, "--steps");
  require_positive(config.min_steps, "--min-steps");
  if (config.min_steps > config.max_steps) throw UsageError("--min-steps must not exceed --steps");
  if (config.warmup < 0) throw UsageError("--warmup must be >= 0, got " + std::to_string(config.warmup));
  if (config.batch) require_positive(*config.batch, "--batch");
  if (config.threads < 0) throw UsageError("--threads must be >= 0, got " + std::to_string(config.threads));
  if (!(config.max_noise > 0.0 && config.max_noise < 1.0)) throw UsageError("--max-noise must be in (0, 1)");
  if (!(config.time_cap_s > 0.0)) throw UsageError("--time-cap must be positive");
}

// The report is written at the end; make sure it can be before spending minutes measuring. This
// tries for real (permission bits say nothing to root) and removes whatever it created, so a run
// that fails later leaves nothing behind.
void require_writable_out(const std::filesystem::path& out) {
  const auto absolute = std::filesystem::absolute(out);
  auto first_missing = absolute;
  while (!std::filesystem::exists(first_missing.parent_path()) && first_missing.has_parent_path() &&
         first_missing.parent_path() != first_missing) {
    first_missing = first_missing.parent_path();
  }
  const bool existed = std::filesystem::exists(absolute);
  std::error_code error;
  if (existed && !std::filesystem::is_directory(absolute))
    throw UsageError("--out " + out.string() + ": not a directory");
  if (!existed && !std::filesystem::create_directories(absolute, error)) {
    throw UsageError("--out " + out.string() + ": cannot create the directory (" + error.message() + ")");
  }
  const auto probe = absolute / (".ampbench-write-probe-" + std::to_string(getpid()));
  const bool writable = static_cast<bool>(std::ofstream(probe));
  std::filesystem::remove(probe, error);
  if (!existed) std::filesystem::remove_all(first_missing, error);
  if (!writable) throw UsageError("--out " + out.string() + ": not writable");
}

}  // namespace

RunOptions resolve_run_options(const RunFlags& flags, const reports::Environment& environment) {
  RunOptions options;
  auto& config = options.config;
  for (const auto& info : workloads::known_workloads()) config.workloads.push_back(info.name);
  config.modes = {"fp32", "fp16", "bf16"};
  config.device = "auto";
  config.preset = "default";
  config.warmup = 3;
  config.min_steps = 10;
  config.max_steps = 500;
  config.max_noise = 0.02;
  config.time_cap_s = 6.0;
  config.seed = 0;
  config.threads = 0;
  config.isolate = true;
  if (flags.config_file) apply_config_file(*flags.config_file, options);
  apply_flags(flags, options);
  const bool modes_defaulted = !flags.modes && config.modes == std::vector<std::string>{"fp32", "fp16", "bf16"};
  validate(options, environment);
  // On a GPU the default suite adds TF32: on Ampere and later it changes the FP32 answer.
  if (modes_defaulted && config.device != "cpu") config.modes.insert(config.modes.begin() + 1, "tf32");
  require_writable_out(options.out);
  return options;
}

}  // namespace ampbench::cli
