// The workloads ampbench knows, by name: the built-in ones and any a program registers, through
// one API. A user's translation unit registers its model with AMPBENCH_WORKLOAD (or
// register_workload) and links ampbench::main to get the whole CLI over it; `ampbench list`
// prints them all, and every cell, report and `check` treats them alike.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ampbench/workloads/workload.h"

namespace ampbench::workloads {

// Builds the workload for these options (preset, batch override, seed, device). Called once per
// worker process and mode, and for the numerics pass: it must give the same initial weights and
// batches for the same options every time.
using WorkloadFactory = std::function<std::unique_ptr<Workload>(const WorkloadOptions& options)>;

struct WorkloadInfo {
  std::string name;
  std::string summary;  // one line for `ampbench list`
};

struct WorkloadRegistration {
  std::string name;  // what --workloads names: letters, digits, '_', '-', '.'
  std::string summary;
  WorkloadFactory factory;
};

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
