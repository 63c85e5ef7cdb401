// Private: keeps what other code prints to standard error off it for a while (LibTorch's profiler
// logs its start and stop there, and in a worker that is the progress channel to the parent).
// It redirects the file descriptor, not std::cerr's buffer: the profiler's own threads write to
// std::cerr while it runs, and swapping a stream's buffer under a writing thread is a data race (a
// write could land in a buffer being destroyed). A descriptor swap is one atomic dup2 in the kernel.
#pragma once

namespace ampbench::harness::detail {

class QuietStderr {
 public:
  QuietStderr();  // standard error goes to /dev/null until destruction; if that fails, nothing changes
  ~QuietStderr();
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;  // a duplicate of the original standard error
};

}  // namespace ampbench::harness::detail
