// CUPTI activity recording of kernels (toolkit CUPTI, CUDA::cupti; see docs/building.md "Which CUDA
// libraries"). CUPTI hands records over in buffers through C callbacks without a user pointer, on
// a thread of its own, so the records collect in one process-wide sink under a mutex, and one
// recording runs at a time.
#include "profile/kernel_activity.h"

#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

namespace ampbench::harness {
namespace {

// CUPTI fills buffers it asks for; 8 MiB holds tens of thousands of kernel records, so a few
// profiled steps need one or two. Records must be 8-byte aligned (ACTIVITY_RECORD_ALIGNMENT).
constexpr std::size_t kBufferBytes = std::size_t{8} << 20;
constexpr std::size_t kRecordAlignment = 8;

struct ActivitySink {
  std::mutex mutex;
  std::vector<KernelRecord> kernels;
  std::size_t dropped = 0;
  std::string error;  // the first failure while reading a buffer
};

ActivitySink& sink() {
  static ActivitySink instance;
  return instance;
}

std::atomic<bool> recording_in_progress{false};

std::string describe_failure(CUptiResult result, std::string_view call) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
  return std::string(call) + " failed: " + text;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kRecordAlignment, kBufferBytes));
  // A zero size makes CUPTI drop the records, which the recording then reports as unavailable.
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                               size_t valid_size) {
  std::vector<KernelRecord> kernels;
  std::string error;
  CUpti_Activity* record = nullptr;
  for (;;) {
    const CUptiResult next = cuptiActivityGetNextRecord(buffer, valid_size, &record);
    if (next == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // the end of the buffer
    if (next != CUPTI_SUCCESS) {
      error = describe_failure(next, "cuptiActivityGetNextRecord");
      break;
    }
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    // CUPTI 13.0 writes the latest kernel record layout.
    const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    kernels.push_back(
        {kernel->name != nullptr ? kernel->name : "", kernel->end > kernel->start ? kernel->end - kernel->start : 0});
  }
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
  std::free(buffer);

  auto& shared = sink();
  const std::lock_guard lock(shared.mutex);
  shared.kernels.insert(shared.kernels.end(), std::make_move_iterator(kernels.begin()),
                        std::make_move_iterator(kernels.end()));
  shared.dropped += dropped;
  if (shared.error.empty()) shared.error = std::move(error);
}

// Kernel recording switched on for its lifetime; stop() switches it off and has CUPTI hand over
// every buffer, also when the section threw.
class EnabledKernelActivity {
 public:
  EnabledKernelActivity() = default;
  EnabledKernelActivity(const EnabledKernelActivity&) = delete;
  EnabledKernelActivity& operator=(const EnabledKernelActivity&) = delete;
  ~EnabledKernelActivity() {
    if (enabled_) (void)stop();
  }

  [[nodiscard]] std::string start() {
    if (const auto result = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); result != CUPTI_SUCCESS)
      return describe_failure(result, "cuptiActivityRegisterCallbacks");
    if (const auto result = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); result != CUPTI_SUCCESS)
      return describe_failure(result, "cuptiActivityEnable(CONCURRENT_KERNEL)");
    enabled_ = true;
    return {};
  }

  [[nodiscard]] std::string stop() {
    enabled_ = false;
    if (const auto result = cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); result != CUPTI_SUCCESS)
      return describe_failure(result, "cuptiActivityDisable(CONCURRENT_KERNEL)");
    if (const auto result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); result != CUPTI_SUCCESS)
      return describe_failure(result, "cuptiActivityFlushAll");
    return {};
  }

 private:
  bool enabled_ = false;
};

class RecordingSlot {
 public:
  RecordingSlot() : held_(!recording_in_progress.exchange(true)) {}
  RecordingSlot(const RecordingSlot&) = delete;
  RecordingSlot& operator=(const RecordingSlot&) = delete;
  ~RecordingSlot() {
    if (held_) recording_in_progress.store(false);
  }
  [[nodiscard]] bool held() const { return held_; }

 private:
  bool held_;
};

KernelActivityOutcome unavailable(std::string reason) { return {std::nullopt, std::move(reason)}; }

}  // namespace

KernelActivityOutcome record_kernel_activity(const std::function<void()>& section, std::size_t top_kernels) {
  const RecordingSlot slot;
  if (!slot.held()) return unavailable("another kernel-activity recording is in progress in this process");
  {
    auto& shared = sink();
    const std::lock_guard lock(shared.mutex);
    shared.kernels.clear();
    shared.dropped = 0;
    shared.error.clear();
  }

  EnabledKernelActivity activity;
  if (auto failure = activity.start(); !failure.empty()) return unavailable(std::move(failure));
  section();
  if (auto failure = activity.stop(); !failure.empty()) return unavailable(std::move(failure));

  auto& shared = sink();
  const std::lock_guard lock(shared.mutex);
  if (!shared.error.empty()) return unavailable(shared.error);
  if (shared.dropped > 0) {
    return unavailable("CUPTI dropped " + std::to_string(shared.dropped) +
                       " kernel records (no memory for activity buffers)");
  }
  if (shared.kernels.empty()) return unavailable("CUPTI recorded no kernels in the profiled steps (no GPU work seen)");
  return {summarize_kernel_time(shared.kernels, top_kernels), {}};
}

}  // namespace ampbench::harness
