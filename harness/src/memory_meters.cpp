#include "ampbench/harness/memory_meters.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <fstream>
#include <string>

namespace ampbench::harness {
namespace {

// Wraps LibTorch's default CPU allocator; each allocation carries a small context that remembers
// its size, so frees are counted without a lookup table.
class CountingCpuAllocator final : public c10::Allocator {
 public:
  explicit CountingCpuAllocator(c10::Allocator* inner) : inner_(inner) {}

  c10::DataPtr allocate(size_t bytes) override {
    c10::DataPtr inner = inner_->allocate(bytes);
    void* data = inner.get();
    const c10::Device device = inner.device();
    auto* context = new Allocation{std::move(inner), bytes, this};
    add(static_cast<std::int64_t>(bytes));
    return {data, context, &release, device};
  }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }

  void reset_peak() { peak_.store(live_.load()); }
  [[nodiscard]] std::int64_t live() const { return live_.load(); }
  [[nodiscard]] std::int64_t peak() const { return peak_.load(); }

 private:
  struct Allocation {
    c10::DataPtr inner;  // freeing it frees the memory through the wrapped allocator
    size_t bytes;
    CountingCpuAllocator* owner;
  };

  static void release(void* context) {
    auto* allocation = static_cast<Allocation*>(context);
    allocation->owner->live_.fetch_sub(static_cast<std::int64_t>(allocation->bytes));
    delete allocation;
  }

  void add(std::int64_t bytes) {
    const std::int64_t now = live_.fetch_add(bytes) + bytes;
    std::int64_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
  }

  c10::Allocator* inner_;
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
