// Private: the process's page-fault counters (getrusage, every thread), read around each timed
// step outside its timer: a step that pages freed memory back in pays for it in its time.
#pragma once

#include <sys/resource.h>

#include <cstdint>

namespace ampbench::harness::detail {

struct PageFaultCount {
  std::int64_t minor = 0;
  std::int64_t major = 0;
};

[[nodiscard]] inline PageFaultCount process_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return {usage.ru_minflt, usage.ru_majflt};
}

}  // namespace ampbench::harness::detail
