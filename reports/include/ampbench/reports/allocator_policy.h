// Which memory allocator a run's workers use (docs/running.md). A step's time depends on
// it: glibc's defaults hand freed activation buffers back to the kernel and page them in again on
// the next step, so the same cell measured 60% apart with what else shared its process. The
// policy is a setting of the run, and the report records what was in effect.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ampbench::reports {

enum class AllocatorPolicy {
  kGlibc,       // glibc's malloc with its defaults: what an untuned program gets
  kGlibcFixed,  // glibc's malloc with fixed thresholds (mallopt): freed memory stays in the process
  kJemalloc,    // jemalloc with its defaults, preloaded into the workers
  kTcmalloc,    // tcmalloc (gperftools' minimal build) with its defaults, preloaded into the workers
};

struct AllocatorPolicyInfo {
  AllocatorPolicy policy;
  std::string_view name;     // in flags, config files and report.json
  std::string_view summary;  // for --help and the docs
  // Preloaded policies: the shared library (its file name, looked up in the system's library
  // folders) and the Debian package that provides it. Empty for glibc's.
  std::string_view library;
  std::string_view package;
};

// Every policy, in the order --help lists them; the one table of names.
[[nodiscard]] const std::vector<AllocatorPolicyInfo>& allocator_policies();
[[nodiscard]] const AllocatorPolicyInfo& allocator_policy_info(AllocatorPolicy policy);
[[nodiscard]] std::string_view to_string(AllocatorPolicy policy);
[[nodiscard]] std::optional<AllocatorPolicy> parse_allocator_policy(std::string_view name);
// "glibc, glibc-fixed, jemalloc or tcmalloc", for error messages.
[[nodiscard]] std::string allocator_policy_names();

std::ostream& operator<<(std::ostream& out, AllocatorPolicy policy);

}  // namespace ampbench::reports
