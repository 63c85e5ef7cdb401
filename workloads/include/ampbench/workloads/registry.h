// The workloads ampbench knows, by name: the built-in ones and any a program registers, through
// one API. A user's translation unit registers its model with AMPBENCH_WORKLOAD (or
// register_workload) and links ampbench::main to get the whole CLI over it; `ampbench list`
// prints them all, and every cell, report and `check` treats them alike.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ampbench/workloads/workload.h"

namespace ampbench::workloads {

// Builds the workload for these options (preset, batch override, seed, device). Called once per
// worker process and mode, and for the numerics pass: it must give the same initial weights and
// batches for the same options every time.
using WorkloadFactory = std::function<std::unique_ptr<Workload>(const WorkloadOptions& options)>;

// What one training step of a workload keeps in device memory, from its sizes alone (no model is
// built): the preflight check refuses a run that cannot fit before any cell starts.
struct MemoryEstimate {
  std::int64_t batch = 0;         // the batch size estimated: the preset's, or the override
  double trained_parameters = 0;  // float32 master weights, each with a gradient
  double optimizer_state = 0;     // float32 values per trained parameter: 0 (SGD), 2 (Adam)
  double resident_bytes = 0;      // what stays besides: a teacher's weights, class templates
  double batch_bytes = 0;         // one batch, input and target
  double saved_activations = 0;   // elements backward keeps from one forward, at the compute width
  double largest_temporary = 0;   // elements of the largest tensor a step allocates and frees
};

// Estimates for these options (preset, batch), or nothing when a workload cannot say.
using MemoryEstimator = std::function<MemoryEstimate(const WorkloadOptions& options)>;

struct WorkloadInfo {
  std::string name;
  std::string summary;  // one line for `ampbench list`
};

struct WorkloadRegistration {
  std::string name;  // what --workloads names: letters, digits, '_', '-', '.'
  std::string summary;
  WorkloadFactory factory;
  MemoryEstimator estimate_memory = nullptr;  // optional: without it the preflight skips the workload
};

// The registered workload's estimate; nullopt when it registered none. std::invalid_argument for
// an unknown name.
[[nodiscard]] std::optional<MemoryEstimate> estimate_memory(const std::string& name, const WorkloadOptions& options);

// Adds a workload. Never throws (it runs during static initialisation): an empty or malformed
// name, a name already taken or a missing factory is kept as an error, which
// registration_errors() returns and ampbench::main reports (exit 2) before anything runs.
void register_workload(WorkloadRegistration registration);
[[nodiscard]] std::vector<std::string> registration_errors();

// The built-in workloads first, then the registered ones in registration order.
[[nodiscard]] std::vector<WorkloadInfo> known_workloads();

// Builds a workload and checks what can be checked without training: a factory that returns
// nothing, a workload whose name() is not the registered name, one without parameters, or with
// FLOPs or samples per step that are negative or zero. Every problem, and an exception from the
// factory, is a std::invalid_argument naming the workload; an unknown name lists the known ones.
[[nodiscard]] std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadOptions& options);

}  // namespace ampbench::workloads

#define AMPBENCH_WORKLOAD_CONCAT_INNER(a, b) a##b
#define AMPBENCH_WORKLOAD_CONCAT(a, b) AMPBENCH_WORKLOAD_CONCAT_INNER(a, b)
// AMPBENCH_WORKLOAD("my_model", "what it is", factory): registers at static initialisation, from
// any translation unit linked into the program (not from a static library's unreferenced object).
#define AMPBENCH_WORKLOAD(name, summary, factory)                                                        \
  [[maybe_unused]] static const bool AMPBENCH_WORKLOAD_CONCAT(ampbench_workload_registered_, __LINE__) = \
      (::ampbench::workloads::register_workload({name, summary, factory}), true)
