#include "ampbench/workloads/registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "factories.h"

namespace ampbench::workloads {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<WorkloadRegistration> entries;
  std::vector<std::string> errors;
};

bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_' || c == '-' || c == '.';
  });
}

void add(Registry& registry, WorkloadRegistration registration) {
  const std::lock_guard lock(registry.mutex);
  const auto& name = registration.name;
  const auto taken = std::any_of(registry.entries.begin(), registry.entries.end(),
                                 [&](const WorkloadRegistration& entry) { return entry.name == name; });
  if (!valid_name(name)) {
    registry.errors.push_back("workload '" + name + "': a name must be non-empty letters, digits, '_', '-' or '.'");
  } else if (taken) {
    registry.errors.push_back("workload '" + name + "': registered twice");
  } else if (!registration.factory) {
    registry.errors.push_back("workload '" + name + "': registered without a factory");
  } else {
    registry.entries.push_back(std::move(registration));
  }
}

// The built-in workloads are registrations like any other, added when the registry is first used
// (whichever translation unit's static initialisation comes first).
Registry& registry() {
  static Registry instance;
  static const bool builtins_added = [] {
    for (auto& builtin : detail::builtin_workloads()) add(instance, std::move(builtin));
    return true;
  }();
  (void)builtins_added;
  return instance;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

void require(bool condition, const std::string& name, const std::string& problem) {
  if (!condition) throw std::invalid_argument("workload '" + name + "': " + problem);
}

}  // namespace

void register_workload(WorkloadRegistration registration) { add(registry(), std::move(registration)); }

std::vector<std::string> registration_errors() {
  auto& instance = registry();
  const std::lock_guard lock(instance.mutex);
  return instance.errors;
}

std::vector<WorkloadInfo> known_workloads() {
  auto& instance = registry();
  const std::lock_guard lock(instance.mutex);
  std::vector<WorkloadInfo> infos;
  for (const auto& entry : instance.entries) infos.push_back({entry.name, entry.summary});
  return infos;
}

std::optional<MemoryEstimate> estimate_memory(const std::string& name, const WorkloadOptions& options) {
  MemoryEstimator estimator;
  bool found = false;
  {
    auto& instance = registry();
    const std::lock_guard lock(instance.mutex);
    for (const auto& entry : instance.entries) {
      if (entry.name != name) continue;
      found = true;
      estimator = entry.estimate_memory;
    }
  }
  if (!found) throw std::invalid_argument("unknown workload '" + name + "'");
  if (!estimator) return std::nullopt;
  return estimator(options);
}

std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadOptions& options) {
  WorkloadFactory factory;
  std::vector<std::string> names;
  {
    auto& instance = registry();
    const std::lock_guard lock(instance.mutex);
    for (const auto& entry : instance.entries) {
      names.push_back(entry.name);
      if (entry.name == name) factory = entry.factory;
    }
  }
  if (!factory) throw std::invalid_argument("unknown workload '" + name + "' (known: " + joined(names) + ")");
  std::unique_ptr<Workload> workload;
  try {
    workload = factory(options);
  } catch (const std::exception& error) {
    throw std::invalid_argument("workload '" + name + "': its factory threw: " + error.what());
  }
  require(workload != nullptr, name, "its factory returned no workload");
  require(workload->name() == name, name, "its name() is '" + workload->name() + "', not the registered name");
  require(!workload->module().parameters().empty(), name, "the model has no parameters to train");
  require(workload->samples_per_step() > 0, name,
          "samples_per_step() must be positive, got " + std::to_string(workload->samples_per_step()));
  if (const auto flops = workload->flops_per_step()) {
    require(*flops > 0.0 && std::isfinite(*flops), name, "flops_per_step(), when stated, must be positive and finite");
  }
  return workload;
}

namespace detail {

std::int64_t batch_size(const WorkloadOptions& options, std::int64_t preset_batch) {
  const std::int64_t batch = options.batch.value_or(preset_batch);
  if (batch <= 0) throw std::invalid_argument("batch must be positive, got " + std::to_string(batch));
  return batch;
}

std::vector<WorkloadRegistration> builtin_workloads() {
  return {
      {"simplenet", "MLP regressing a random teacher MLP (MSE, SGD); seed preset: Linear 10->1, 100 samples",
       make_simple_net, estimate_simple_net},
      {"simplecnn", "conv 3->32->64 + fc on 3x32x32 images, teacher's classes (CrossEntropy, Adam)", make_simple_cnn,
       estimate_simple_cnn},
      {"transformer", "pre-norm attention (SDPA) + GELU MLP block regressing a teacher block (MSE, AdamW)",
       make_transformer_block, estimate_transformer_block},
  };
}

}  // namespace detail
}  // namespace ampbench::workloads
