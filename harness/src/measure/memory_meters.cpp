#include "measure/memory_meters.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ampbench::harness {
namespace {

// Wraps LibTorch's default CPU allocator. The DataPtr it hands out keeps context == data, as the
// default allocator's do: oneDNN (convolutions, attention) asserts exactly that, so the size and
// the inner deleter of each live allocation are kept in a table instead of in the context.
class CountingCpuAllocator final : public c10::Allocator {
 public:
  explicit CountingCpuAllocator(c10::Allocator* inner) : inner_(inner) {}

  c10::DataPtr allocate(size_t bytes) override {
    c10::DataPtr inner = inner_->allocate(bytes);
    void* data = inner.get();
    const c10::Device device = inner.device();
    if (data == nullptr) return inner;  // zero-byte allocations: nothing to count or free
    const c10::DeleterFnPtr inner_deleter = inner.get_deleter();
    void* inner_context = inner.release_context();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      live_allocations_[data] = Allocation{bytes, inner_context, inner_deleter};
    }
    add(static_cast<std::int64_t>(bytes));
    return {data, data, &release, device};
  }

  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

  // oneDNN allocates through raw_allocate()/raw_deallocate(), which need a deleter that takes the
  // data pointer alone: ours does, since sizes live in the table.
  c10::DeleterFnPtr raw_deleter() const override { return &release; }

  void reset_peak() { peak_.store(live_.load()); }
  [[nodiscard]] std::int64_t live() const { return live_.load(); }
  [[nodiscard]] std::int64_t peak() const { return peak_.load(); }

 private:
  struct Allocation {
    size_t bytes;
    void* inner_context;
    c10::DeleterFnPtr inner_deleter;
  };

  static void release(void* data);

  void add(std::int64_t bytes) {
    const std::int64_t now = live_.fetch_add(bytes) + bytes;
    std::int64_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
  }

  void free(void* data) {
    Allocation allocation{};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = live_allocations_.find(data);
      if (found == live_allocations_.end()) return;
      allocation = found->second;
      live_allocations_.erase(found);
    }
    live_.fetch_sub(static_cast<std::int64_t>(allocation.bytes));
    if (allocation.inner_deleter != nullptr) allocation.inner_deleter(allocation.inner_context);
  }

  c10::Allocator* inner_;
  std::mutex mutex_;
  std::unordered_map<void*, Allocation> live_allocations_;
  std::atomic<std::int64_t> live_{0};
  std::atomic<std::int64_t> peak_{0};
};

CountingCpuAllocator& counting_allocator() {
  // Never destroyed: tensors freed during static destruction still call back into it.
  static auto* allocator = [] {
    auto* counting = new CountingCpuAllocator(c10::GetDefaultCPUAllocator());
    // Priority above the default allocator's registration, so ours stays in place.
    c10::SetCPUAllocator(counting, /*priority=*/100);
    return counting;
  }();
  return *allocator;
}

void CountingCpuAllocator::release(void* data) { counting_allocator().free(data); }

std::int64_t status_kib(const std::string& key) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1));
  }
  return 0;
}

}  // namespace

CpuTensorMemoryMeter& CpuTensorMemoryMeter::install() {
  static CpuTensorMemoryMeter meter;
  counting_allocator();
  return meter;
}

void CpuTensorMemoryMeter::reset_peak() { counting_allocator().reset_peak(); }
std::int64_t CpuTensorMemoryMeter::live_bytes() const { return counting_allocator().live(); }
std::int64_t CpuTensorMemoryMeter::peak_bytes() const { return counting_allocator().peak(); }

std::int64_t peak_rss_bytes() { return status_kib("VmHWM") * 1024; }

bool reset_peak_rss() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";  // "5": reset the peak RSS to the current RSS (Linux >= 4.0)
  return static_cast<bool>(clear_refs.flush());
}

}  // namespace ampbench::harness
