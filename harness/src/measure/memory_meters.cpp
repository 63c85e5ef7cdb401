#include "measure/memory_meters.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/alignment.h>

#include <atomic>
#include <fstream>
#include <new>
#include <string>

namespace ampbench::harness {
namespace {

// Wraps LibTorch's default CPU allocator. The DataPtr it hands out keeps context == data, as the
// default allocator's do: oneDNN (convolutions, attention) asserts exactly that. So the size and
// the inner allocation's deleter live in a header just before the data: each allocation asks the
// inner allocator for kHeaderBytes more, which keeps its alignment. Counting then costs two atomic
// adds and no lock, inside every timed step (a table of live allocations behind a mutex cost
// ~90 ns per allocation: 4 us of SimpleNet's BF16 step, docs/performance.md).
class CountingCpuAllocator final : public c10::Allocator {
 public:
  explicit CountingCpuAllocator(c10::Allocator* inner) : inner_(inner) {}

  c10::DataPtr allocate(size_t bytes) override {
    // Zero bytes: LibTorch's allocator hands out nullptr with nothing to free (and raw_deallocate
    // passes that nullptr to this deleter, which ignores it).
    if (bytes == 0) return inner_->allocate(0);
    c10::DataPtr inner = inner_->allocate(bytes + kHeaderBytes);
    auto* start = static_cast<char*>(inner.get());
    const c10::Device device = inner.device();
    const c10::DeleterFnPtr inner_deleter = inner.get_deleter();
    void* inner_context = inner.release_context();
    new (start) Header{bytes, inner_context, inner_deleter};
    void* data = start + kHeaderBytes;
    add(static_cast<std::int64_t>(bytes));
    return {data, data, &release, device};
  }

  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

  // oneDNN allocates through raw_allocate()/raw_deallocate(), which need a deleter that takes the
  // data pointer alone: this one does, since the header sits at a fixed offset before it.
  c10::DeleterFnPtr raw_deleter() const override { return &release; }

  void reset_peak() { peak_.store(live_.load()); }
  [[nodiscard]] std::int64_t live() const { return live_.load(); }
  [[nodiscard]] std::int64_t peak() const { return peak_.load(); }

 private:
  struct Header {
    size_t bytes;
    void* inner_context;
    c10::DeleterFnPtr inner_deleter;
  };
  // The inner allocator aligns to c10::gAlignment; a header of a multiple of it keeps the data so.
  static constexpr size_t kHeaderBytes = (sizeof(Header) + c10::gAlignment - 1) / c10::gAlignment * c10::gAlignment;

  static void release(void* data);

  void add(std::int64_t bytes) {
    const std::int64_t now = live_.fetch_add(bytes) + bytes;
    std::int64_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
  }

  void free(void* data) {
    if (data == nullptr) return;  // a zero-byte raw_allocate()'s, freed by raw_deallocate()
    const Header header = *reinterpret_cast<const Header*>(static_cast<char*>(data) - kHeaderBytes);
    live_.fetch_sub(static_cast<std::int64_t>(header.bytes));
    if (header.inner_deleter != nullptr) header.inner_deleter(header.inner_context);
  }

  c10::Allocator* inner_;
  std::atomic<std::int64_t> live_{0};
  std::atomic<std::int64_t> peak_{0};
};

CountingCpuAllocator& counting_allocator() {
  // Never destroyed: tensors freed during static destruction still call back into it.
  static auto* allocator = [] {
    auto* counting = new CountingCpuAllocator(c10::GetDefaultCPUAllocator());
    // Priority above the default allocator's registration, so the counting one stays in place.
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
