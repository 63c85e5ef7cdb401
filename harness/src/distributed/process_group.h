// Private: c10d's process group of a data-parallel worker (docs/distributed.md):
// the rendezvous TCPStore of the run, this group's key prefix in it, and the backend the device
// needs (Gloo on the CPU, NCCL on a GPU, one GPU per rank).
#pragma once

#include <c10/core/Device.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <string>

#include "ampbench/harness/workload_task.h"

namespace ampbench::harness::detail {

// Connects to the run's store as a client and builds the group's backend; waits up to `timeout`
// for every rank (and c10d applies the same timeout to each collective). Throws naming the store.
[[nodiscard]] c10::intrusive_ptr<c10d::ProcessGroup> open_process_group(const RankAssignment& rank, c10::Device device,
                                                                        std::chrono::milliseconds timeout);

// The backends, each in the file that may include its headers (Gloo's from libgloo-dev; NCCL's only
// in the CUDA build).
[[nodiscard]] c10::intrusive_ptr<c10d::Backend> make_gloo_backend(const c10::intrusive_ptr<c10d::Store>& store,
                                                                  int rank, int size, const std::string& host,
                                                                  std::chrono::milliseconds timeout);
[[nodiscard]] c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>& store,
                                                                  int rank, int size, c10::Device device,
                                                                  std::chrono::milliseconds timeout);

// c10d logs each failed attempt of a rendezvous (with a stack trace for some); while one of these
// lives only fatal messages are logged, and the caller reports the outcome itself.
class QuietC10dLog {
 public:
  QuietC10dLog();
  ~QuietC10dLog();
  QuietC10dLog(const QuietC10dLog&) = delete;
  QuietC10dLog& operator=(const QuietC10dLog&) = delete;

 private:
  int level_;
};

// The value rank 0 holds, on every rank (a broadcast): how ranks that measured different times
// still take the same decisions (warm-up length, round size, when to stop). A null group: `value`.
[[nodiscard]] double from_rank_zero(c10d::ProcessGroup* group, c10::Device device, double value);

}  // namespace ampbench::harness::detail
