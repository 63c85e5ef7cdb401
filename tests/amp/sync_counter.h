// Counts host synchronisations through the dispatcher's own record of aten::_local_scalar_dense,
// the op behind every Tensor::item() (on CUDA, the device -> host copy that synchronises).
#pragma once

#include <ATen/record_function.h>

#include <cstdint>
#include <memory>
#include <string_view>

namespace ampbench::amp::testing {

// Counts aten::_local_scalar_dense calls on this thread while it lives.
class SyncCounter {
 public:
  SyncCounter()
      : handle_(at::addThreadLocalCallback(
            at::RecordFunctionCallback(count_local_scalar_dense).scopes({at::RecordScope::FUNCTION}))) {
    calls() = 0;
  }
  ~SyncCounter() { at::removeCallback(handle_); }
  SyncCounter(const SyncCounter&) = delete;
  SyncCounter& operator=(const SyncCounter&) = delete;
  [[nodiscard]] std::int64_t count() const { return calls(); }

 private:
  static std::int64_t& calls() {
    thread_local std::int64_t count = 0;
    return count;
  }
  static std::unique_ptr<at::ObserverContext> count_local_scalar_dense(const at::RecordFunction& fn) {
    if (std::string_view(fn.name()) == "aten::_local_scalar_dense") ++calls();
    return nullptr;
  }

  at::CallbackHandle handle_;
};

}  // namespace ampbench::amp::testing
