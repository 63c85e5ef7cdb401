#include "ampbench/reports/run_config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ampbench/reports/json_reader.h"
#include "ampbench/reports/report_json.h"
#include "render/format.h"

namespace ampbench::reports {
namespace {

using nlohmann::json;

[[noreturn]] void expected(const std::string& what, const json& value) {
  throw SettingError("must be " + what + ", got " + value.type_name());
}

// Strict decimal: the whole text, base 10 (no octal "010" = 8, no "0x"), within the type's range.
template <typename T>
T parse_number(const std::string& text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc::result_out_of_range) throw SettingError("'" + text + "' is out of range");
  if (error != std::errc() || stop != end || text.empty()) {
    throw SettingError("'" + text + "' is not a " + (std::is_integral_v<T> ? "decimal integer" : "decimal number"));
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) throw SettingError("'" + text + "' is not finite");
  }
  return value;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// The typed pieces of a field: how a value of type T is written, read, parsed and shown.
template <typename T>
struct Codec;

template <>
struct Codec<std::int64_t> {
  static json write(std::int64_t value) { return value; }
  static std::int64_t read(const json& value) {
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw SettingError("is out of range: " + value.dump());
    }
    if (!value.is_number_integer()) expected("an integer", value);
    return value.get<std::int64_t>();
  }
  static std::int64_t parse(const std::string& text) { return parse_number<std::int64_t>(text); }
  static std::string show(std::int64_t value) { return std::to_string(value); }
};

template <>
struct Codec<int> {
  static json write(int value) { return value; }
  static int read(const json& value) {
    const auto wide = Codec<std::int64_t>::read(value);
    if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max()) {
      throw SettingError("is out of range: " + value.dump());
    }
    return static_cast<int>(wide);
  }
  static int parse(const std::string& text) { return parse_number<int>(text); }
  static std::string show(int value) { return std::to_string(value); }
};

template <>
struct Codec<double> {
  static json write(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }
  static double read(const json& value) {
    if (!value.is_number()) expected("a number", value);
    return value.get<double>();
  }
  static double parse(const std::string& text) { return parse_number<double>(text); }
  static std::string show(double value) { return detail::format_general(value); }
};

template <>
struct Codec<bool> {
  static json write(bool value) { return value; }
  static bool read(const json& value) {
    if (!value.is_boolean()) expected("true or false", value);
    return value.get<bool>();
  }
  static bool parse(const std::string& text) {
    if (text == "true") return true;
    if (text == "false") return false;
    throw SettingError("'" + text + "' is not true or false");
  }
  static std::string show(bool value) { return value ? "true" : "false"; }
};

template <>
struct Codec<std::string> {
  static json write(const std::string& value) { return value; }
  static std::string read(const json& value) {
    if (!value.is_string()) expected("a string", value);
    return value.get<std::string>();
  }
  static std::string parse(const std::string& text) { return text; }
  static std::string show(const std::string& value) { return value; }
};

template <>
struct Codec<std::vector<std::string>> {
  static json write(const std::vector<std::string>& value) { return value; }
  static std::vector<std::string> read(const json& value) {
    if (!value.is_array() || !std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_string(); })) {
      expected("an array of strings", value);
    }
    return value.get<std::vector<std::string>>();
  }
  // An empty list on the command line ('', ",") is a mistake, not a request for the default: the
  // default is what leaving the flag out gives.
  static std::vector<std::string> parse(const std::string& text) {
    auto items = split_list(text);
    if (items.empty()) throw SettingError("'" + text + "' lists nothing (leave the flag out for the default)");
    return items;
  }
  static std::string show(const std::vector<std::string>& value) {
    std::string text;
    for (const auto& item : value) text += (text.empty() ? "" : ",") + item;
    return text;
  }
};

template <>
struct Codec<std::optional<std::int64_t>> {
  static json write(const std::optional<std::int64_t>& value) { return value ? json(*value) : json(nullptr); }
  static std::optional<std::int64_t> read(const json& value) {
    if (value.is_null()) return std::nullopt;
    return Codec<std::int64_t>::read(value);
  }
  static std::optional<std::int64_t> parse(const std::string& text) { return Codec<std::int64_t>::parse(text); }
  static std::string show(const std::optional<std::int64_t>& value) { return value ? std::to_string(*value) : ""; }
};

// A vocabulary enum: written and shown by its name, read and parsed from it; a wrong one is refused
// with the names it could have been.
template <typename Enum, std::optional<Enum> (*named)(std::string_view), std::string (*names)()>
struct NamedCodec {
  static json write(Enum value) { return std::string(to_string(value)); }
  static Enum read(const json& value) {
    if (!value.is_string()) expected(names(), value);
    return parse(value.get<std::string>());
  }
  static Enum parse(const std::string& text) {
    const auto value = named(text);
    if (!value) throw SettingError("'" + text + "' is not " + names());
    return *value;
  }
  static std::string show(Enum value) { return std::string(to_string(value)); }
};

template <>
struct Codec<AllocatorPolicy> : NamedCodec<AllocatorPolicy, parse_allocator_policy, allocator_policy_names> {};

template <>
struct Codec<GradCompression> : NamedCodec<GradCompression, grad_compression_named, grad_compression_names> {};
template <>
struct Codec<GraphExecution> : NamedCodec<GraphExecution, graph_execution_named, graph_execution_names> {};

template <typename T>
RunConfigField field(T RunConfig::*member, std::string key, std::string flag, std::string help,
                     std::string file_key = "", bool optional_on_read = false) {
  RunConfigField out;
  out.file_key = file_key.empty() ? key : file_key;
  out.key = std::move(key);
  out.flag = std::move(flag);
  out.help = std::move(help);
  out.optional_on_read = optional_on_read;
  out.write = [member](const RunConfig& config) { return Codec<T>::write(config.*member); };
  out.read = [member](RunConfig& config, const json& value) { config.*member = Codec<T>::read(value); };
  out.parse = [member](RunConfig& config, const std::string& text) { config.*member = Codec<T>::parse(text); };
  out.show = [member](const RunConfig& config) { return Codec<T>::show(config.*member); };
  out.member = &(detail::member_anchor().*member);
  return out;
}

void require(bool ok, const std::string& message) {
  if (!ok) throw SettingError(message);
}

template <typename T>
void require_range(T value, T low, T high, const std::string& flag) {
  require(value >= low && value <= high, flag + " must be in [" + Codec<T>::show(low) + ", " + Codec<T>::show(high) +
                                             "], got " + Codec<T>::show(value));
}

void require_positive(std::int64_t value, std::int64_t high, const std::string& flag) {
  require(value > 0, flag + " must be positive, got " + std::to_string(value));
  require_range<std::int64_t>(value, 1, high, flag);
}

void require_distinct(const std::vector<std::string>& names, const std::string& flag) {
  std::set<std::string> seen;
  for (const auto& name : names) require(seen.insert(name).second, flag + ": '" + name + "' is listed twice");
}

// A setting on by default, whose flag turns it off.
RunConfigField off_switch(bool RunConfig::*member, std::string key, std::string flag, std::string help,
                          bool optional_on_read) {
  auto out = field(member, std::move(key), std::move(flag), std::move(help), "", optional_on_read);
  out.flag_turns_off = true;
  return out;
}

// Reports from before the setting ran under glibc's defaults, not under today's default.
RunConfigField allocator_field() {
  auto out = field(&RunConfig::allocator, "allocator", "--allocator",
                   "The malloc of every worker process: glibc (its defaults), glibc-fixed (freed memory kept in the "
                   "process), jemalloc or tcmalloc (preloaded; Debian's libjemalloc2, libtcmalloc-minimal4)",
                   "", true);
  out.value_when_absent = std::string(to_string(AllocatorPolicy::kGlibc));
  return out;
}

}  // namespace

const std::vector<RunConfigField>& run_config_fields() {
  static const std::vector<RunConfigField> fields{
      field(&RunConfig::workloads, "workloads", "--workloads",
            "Comma-separated workloads (default: all; see 'ampbench list')"),
      field(&RunConfig::modes, "modes", "--modes",
            "Comma-separated modes (default: fp32,fp16,bf16; on a GPU also tf32)"),
      field(&RunConfig::device, "device", "--device", "auto, cpu, cuda or cuda:N (auto = the first GPU, else the CPU)"),
      field(&RunConfig::preset, "preset", "--preset", "Workload sizes"),  // the CLI appends the workloads' names
      field(&RunConfig::max_steps, "max_steps", "--steps", "Most timed steps per cell", "steps"),
      field(&RunConfig::min_steps, "min_steps", "--min-steps",
            "Fewest timed steps per cell before the noise target may stop"),
      field(&RunConfig::warmup, "warmup", "--warmup", "Untimed warm-up steps per cell (also bounded by --time-cap)"),
      field(&RunConfig::min_rounds, "min_rounds", "--min-rounds",
            "Fewest interleaved rounds of a worker before the noise target may stop it", "", true),
      field(&RunConfig::round_steps, "round_steps", "--round-steps",
            "Timed steps of each mode per round (0: sized to about a second per round)", "", true),
      field(&RunConfig::replicates, "replicates", "--replicates",
            "Worker processes per workload, run in turn with the other workloads' (steps and time cap are shared "
            "out among them); intervals and 'check' are over them",
            "", true),
      field(&RunConfig::numerics_steps, "numerics_steps", "--numerics-steps",
            "Steps every mode trains in the numerics pass that divergence comes from (0: no pass; default: the "
            "preset's)",
            "", true),
      field(&RunConfig::max_noise, "max_noise", "--max-noise",
            "Stop a worker's rounds once every 95% CI over them (step times, speedups) is within this fraction"),
      field(&RunConfig::time_cap_s, "time_cap_s", "--time-cap", "Seconds of timed steps per cell at most"),
      field(&RunConfig::seed, "seed", "--seed", "Seed of the initial weights, the teacher and the data"),
      field(&RunConfig::threads, "threads", "--threads", "Intra-op CPU threads (0: LibTorch's choice)"),
      field(&RunConfig::batch, "batch", "--batch", "Batch size for every workload, overriding the preset", "", true),
      field(&RunConfig::worker_timeout_s, "worker_timeout_s", "--worker-timeout",
            "Seconds after which a workload's worker is killed and its cells fail (0: 120 + 5 x --time-cap per mode)",
            "", true),
      off_switch(&RunConfig::isolate, "isolate", "--no-isolate",
                 "Run cells in this process, not in worker processes (debugging; a crash ends the run)", false),
      off_switch(&RunConfig::cupti, "cupti", "--no-cupti",
                 "No CUPTI collection of ampbench's own (tensor-core metrics), e.g. under Nsight Systems or Compute",
                 true),
      off_switch(&RunConfig::breakdown, "breakdown", "--no-breakdown",
                 "No profiled time breakdown per cell (its findings in 'Why' and 'ampbench explain' say so)", true),
      field(&RunConfig::graphs, "graphs", "--graphs",
            "CUDA graphs: off (eager steps), on (each mode's whole step captured after warm-up and replayed) or "
            "both (each mode eager and graphed, as separate cells in the same rounds)",
            "", true),
      field(&RunConfig::ranks, "ranks", "--ranks",
            "Ranks (processes) that train each cell data-parallel on this machine through c10d (Gloo on the CPU, "
            "NCCL on GPUs); each cell also runs on one rank for the scaling efficiency. Under torchrun: WORLD_SIZE",
            "", true),
      field(&RunConfig::grad_compression, "grad_compression", "--grad-compression",
            "With --ranks: all-reduce the gradients as none, fp16 or bf16 (a c10d communication hook)", "", true),
      field(&RunConfig::rank_timeout_s, "rank_timeout_s", "--rank-timeout",
            "With --ranks: seconds c10d waits for a rank (rendezvous, each collective) before the cell fails", "",
            true),
      allocator_field(),
      field(&RunConfig::throttle_threshold_percent, "throttle_threshold_percent", "--throttle-threshold",
            "On a GPU: a round whose lowest SM clock fell below this percentage of the chip's maximum is throttled "
            "and left out of the speedups, as is one in which NVML reported a slowdown (docs/gpu.md)",
            "", true),
  };
  return fields;
}

void validate_run_config(const RunConfig& config) {
  using C = RunConfig;
  const auto& steps = flag_of(&C::max_steps);
  require_distinct(config.workloads, flag_of(&C::workloads));
  require(config.modes.empty() || !config.modes.front().empty(), flag_of(&C::modes) + ": no mode given");
  require_distinct(config.modes, flag_of(&C::modes));
  require_positive(config.max_steps, kMaxStepsPerCell, steps);
  require_positive(config.min_steps, kMaxStepsPerCell, flag_of(&C::min_steps));
  require(config.min_steps <= config.max_steps, flag_of(&C::min_steps) + " (" + std::to_string(config.min_steps) +
                                                    ") must not exceed " + steps + " (" +
                                                    std::to_string(config.max_steps) + ")");
  require_range<std::int64_t>(config.warmup, 0, kMaxWarmupSteps, flag_of(&C::warmup));
  require_range<std::int64_t>(config.min_rounds, 2, kMaxRounds, flag_of(&C::min_rounds));
  require_range<std::int64_t>(config.round_steps, 0, kMaxStepsPerCell, flag_of(&C::round_steps));
  require_range<std::int64_t>(config.replicates, 1, kMaxReplicates, flag_of(&C::replicates));
  require(config.replicates <= config.max_steps, flag_of(&C::replicates) + " (" + std::to_string(config.replicates) +
                                                     ") must not exceed " + steps + " (" +
                                                     std::to_string(config.max_steps) + "): each needs a step");
  require(config.max_noise > 0.0 && config.max_noise < 1.0, flag_of(&C::max_noise) + " must be in (0, 1)");
  require(config.throttle_threshold_percent > 0.0 && config.throttle_threshold_percent <= 100.0,
          flag_of(&C::throttle_threshold_percent) + " must be in (0, 100] percent");
  const auto seconds_range = [](const char* open) {
    return std::string(" must be in ") + open + ", " + detail::format_general(kMaxTimeCapSeconds) + "] seconds";
  };
  require(config.time_cap_s > 0.0 && config.time_cap_s <= kMaxTimeCapSeconds,
          flag_of(&C::time_cap_s) + seconds_range("(0"));
  require(config.worker_timeout_s >= 0.0 && config.worker_timeout_s <= kMaxTimeCapSeconds,
          flag_of(&C::worker_timeout_s) + seconds_range("[0"));
  require(config.seed >= 0, flag_of(&C::seed) + " must be >= 0, got " + std::to_string(config.seed));
  require_range(config.threads, 0, kMaxThreads, flag_of(&C::threads));
  if (config.batch) require_positive(*config.batch, kMaxBatch, flag_of(&C::batch));
  if (config.numerics_steps)
    require_range<std::int64_t>(*config.numerics_steps, 0, kMaxStepsPerCell, flag_of(&C::numerics_steps));
  require_range<std::int64_t>(config.ranks, 1, kMaxRanks, flag_of(&C::ranks));
  const auto& compression = flag_of(&C::grad_compression);
  require(config.grad_compression == GradCompression::kNone || config.ranks > 1,
          compression + " " + std::string(to_string(config.grad_compression)) + ": needs " + flag_of(&C::ranks) +
              " 2 or more (one rank all-reduces nothing)");
  require(config.rank_timeout_s > 0.0 && config.rank_timeout_s <= kMaxTimeCapSeconds,
          flag_of(&C::rank_timeout_s) + seconds_range("(0"));
  require(config.graphs == GraphExecution::kOff || config.ranks == 1,
          flag_of(&C::graphs) + " " + std::string(to_string(config.graphs)) + " with " + flag_of(&C::ranks) + " " +
              std::to_string(config.ranks) + ": a captured step cannot hold c10d's collectives yet");
}

namespace detail {

const RunConfig& member_anchor() {
  static const RunConfig anchor;
  return anchor;
}

const std::string& flag_at(const void* member) {
  for (const auto& field : run_config_fields()) {
    if (field.member == member) return field.flag;
  }
  throw std::logic_error("flag_of: a RunConfig member without a field in the table");
}

}  // namespace detail

RunConfig layer_run_config(const nlohmann::json* file, const std::string& file_name,
                           const std::vector<std::pair<const RunConfigField*, std::string>>& flags) {
  RunConfig config;
  std::set<std::string> given;
  const auto& fields = run_config_fields();
  if (file != nullptr) {
    if (!file->is_object()) throw SettingError("--config " + file_name + ": expected a JSON object");
    for (const auto& [key, value] : file->items()) {
      const auto found =
          // `name`, not the binding itself: clang before 16 (the asan-reports preset's) cannot capture one.
          std::find_if(fields.begin(), fields.end(),
                       [&name = key](const RunConfigField& f) { return f.file_key == name; });
      if (found == fields.end()) throw SettingError("--config " + file_name + ": unknown key '" + key + "'");
      try {
        found->read(config, value);
      } catch (const SettingError& error) {
        throw SettingError("--config " + file_name + ": '" + key + "' " + error.what());
      }
      given.insert(found->key);
    }
  }
  for (const auto& [field, text] : flags) {
    try {
      field->parse(config, text);
    } catch (const SettingError& error) {
      throw SettingError(field->flag + ": " + error.what());
    }
    given.insert(field->key);
  }
  // Defaults that only make sense below --steps follow it down when not given themselves.
  if (given.count("min_steps") == 0) config.min_steps = std::min(config.min_steps, config.max_steps);
  if (given.count("replicates") == 0) config.replicates = std::min(config.replicates, config.max_steps);
  validate_run_config(config);
  return config;
}

nlohmann::json run_config_to_json(const RunConfig& config) {
  json out = json::object();
  for (const auto& field : run_config_fields()) out[field.key] = field.write(config);
  return out;
}

RunConfig run_config_from_json(const nlohmann::json& in, const std::string& path) {
  detail::ObjectReader fields(in, path);
  RunConfig config;
  for (const auto& field : run_config_fields()) {
    const json* value = field.optional_on_read ? fields.optional(field.key) : &fields.required(field.key);
    if (value == nullptr) {
      if (!field.value_when_absent.empty()) field.parse(config, field.value_when_absent);
      continue;
    }
    try {
      field.read(config, *value);
    } catch (const SettingError& error) {
      detail::fail_at(fields.path_of(field.key), error.what());
    }
  }
  fields.finish();
  return config;
}

}  // namespace ampbench::reports
