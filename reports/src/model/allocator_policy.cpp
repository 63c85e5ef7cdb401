#include "ampbench/reports/allocator_policy.h"

#include <algorithm>
#include <ostream>

#include "ampbench/reports/enum_names.h"

namespace ampbench::reports {

const std::vector<AllocatorPolicyInfo>& allocator_policies() {
  static const std::vector<AllocatorPolicyInfo> policies{
      {AllocatorPolicy::kGlibc, "glibc", "glibc's malloc, its defaults (freed large buffers go back to the kernel)", "",
       ""},
      {AllocatorPolicy::kGlibcFixed, "glibc-fixed",
       "glibc's malloc with fixed mmap and trim thresholds (mallopt): freed memory stays in the process", "", ""},
      {AllocatorPolicy::kJemalloc, "jemalloc", "jemalloc, its defaults, preloaded into the workers", "libjemalloc.so.2",
       "libjemalloc2"},
      {AllocatorPolicy::kTcmalloc, "tcmalloc",
       "tcmalloc (gperftools, minimal), its defaults, preloaded into the workers", "libtcmalloc_minimal.so.4",
       "libtcmalloc-minimal4"},
  };
  return policies;
}

const AllocatorPolicyInfo& allocator_policy_info(AllocatorPolicy policy) {
  const auto& policies = allocator_policies();
  return *std::find_if(policies.begin(), policies.end(), [&](const auto& info) { return info.policy == policy; });
}

std::string_view to_string(AllocatorPolicy policy) { return allocator_policy_info(policy).name; }

std::optional<AllocatorPolicy> parse_allocator_policy(std::string_view name) {
  for (const auto& info : allocator_policies()) {
    if (info.name == name) return info.policy;
  }
  return std::nullopt;
}

std::string allocator_policy_names() {
  std::vector<std::string_view> names;
  for (const auto& policy : allocator_policies()) names.push_back(policy.name);
  return detail::alternatives(names);
}

std::ostream& operator<<(std::ostream& out, AllocatorPolicy policy) { return out << to_string(policy); }

}  // namespace ampbench::reports
