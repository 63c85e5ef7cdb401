// Internal to ampbench::amp (public only because GradScaler and GradNormRecorder hold one): a
// per-step record kept on the device, so that recording a step never waits for the device, and
// read back to the host once, when the caller asks for the whole history.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/TensorOptions.h>

#include <cstdint>
#include <vector>

namespace ampbench::amp::detail {

// Rows of `width` values in preallocated [kChunkRows, width] device buffers: one allocation per
// chunk (none per step), memory bounded by the number of steps recorded.
class StepHistory {
 public:
  explicit StepHistory(std::int64_t width) : width_(width) {}

  // The next row, a [width] view the caller writes in place (e.g. with an _out op or copy_).
  // The first row of each chunk allocates the chunk with `options`.
  [[nodiscard]] at::Tensor append(const at::TensorOptions& options);

  // Every row so far as a [size(), width] float64 CPU tensor: one device -> host copy, which is a
  // host synchronisation on a GPU. Callers count it.
  [[nodiscard]] at::Tensor to_host() const;

  [[nodiscard]] std::int64_t size() const { return rows_; }
  // Where the rows live; only meaningful once size() > 0.
  [[nodiscard]] c10::Device device() const { return chunks_.back().device(); }
  void clear();

 private:
  static constexpr std::int64_t kChunkRows = 4096;
  std::int64_t width_;
  std::vector<at::Tensor> chunks_;
  std::int64_t rows_ = 0;
};

}  // namespace ampbench::amp::detail
