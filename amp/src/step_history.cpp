#include "ampbench/amp/detail/step_history.h"

#include <ATen/ATen.h>

namespace ampbench::amp::detail {

at::Tensor StepHistory::append(const at::TensorOptions& options) {
  const std::int64_t row = rows_ % kChunkRows;
  if (row == 0) {
    chunks_.push_back(at::empty({kChunkRows, width_}, options));
  }
  ++rows_;
  return chunks_.back()[row];
}

at::Tensor StepHistory::to_host() const {
  if (rows_ == 0) {
    return at::empty({0, width_}, at::kDouble);
  }
  return at::cat(chunks_).narrow(0, 0, rows_).to(at::kCPU, at::kDouble);
}

void StepHistory::clear() {
  chunks_.clear();
  rows_ = 0;
}

}  // namespace ampbench::amp::detail
