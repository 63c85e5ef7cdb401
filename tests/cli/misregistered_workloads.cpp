// A program on ampbench::main whose registrations are wrong: a built-in name taken again and an
// empty name. Every command must refuse to start (exit 2, naming the workload).
#include <ampbench/workloads/module_workload.h>
#include <ampbench/workloads/registry.h>

namespace {

std::unique_ptr<ampbench::workloads::Workload> never_built(const ampbench::workloads::WorkloadOptions&) {
  return nullptr;
}

}  // namespace

AMPBENCH_WORKLOAD("simplenet", "a second workload of that name", never_built);
AMPBENCH_WORKLOAD("", "a workload without a name", never_built);
