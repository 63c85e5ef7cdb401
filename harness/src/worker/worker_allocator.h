// Private: the allocator policy (reports/allocator_policy.h) made real. The parent starts each
// worker with the policy's environment; the worker applies the policy, checks that malloc is the
// library the policy names and records what it found. Nothing is left to the user's environment:
// another allocator's preload or tunables are taken out, so a report's policy is what ran.
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/allocator_policy.h"
#include "ampbench/reports/environment.h"

namespace ampbench::harness::detail {

// The preloaded policies' library, found in the system's library folders; throws SettingError
// naming --allocator and the Debian package when it is not installed. Empty for glibc's policies.
[[nodiscard]] std::string allocator_library_path(reports::AllocatorPolicy policy);

// A worker's environment ("NAME=value" entries): `parent`'s, less other allocators' preloads
// (LD_PRELOAD entries naming jemalloc, tcmalloc or mimalloc), their variables (MALLOC_CONF,
// TCMALLOC_*, glibc's MALLOC_*_) and glibc.malloc tunables, plus the policy's preload.
[[nodiscard]] std::vector<std::string> worker_environment(reports::AllocatorPolicy policy,
                                                          const std::vector<std::string>& parent);

// In the process that measures (a worker, or this one with --no-isolate): sets glibc's fixed
// thresholds for glibc-fixed, then checks that malloc resolves to the policy's library and
// returns what is in effect. Throws std::runtime_error naming --allocator when it does not.
reports::AllocatorRecord apply_allocator_policy(reports::AllocatorPolicy policy);

// This machine's cost of one minor page fault: fresh anonymous pages touched once, median per
// page over a few batches (a few milliseconds).
[[nodiscard]] double measure_page_fault_s();

}  // namespace ampbench::harness::detail
