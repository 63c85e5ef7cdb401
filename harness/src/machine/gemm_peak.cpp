#include "machine/gemm_peak.h"

#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>

#include "machine/device_hooks.h"

namespace ampbench::harness {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::int64_t kFirstSize = 128;
// fp32 GEMM is near its best by 1024 on a CPU (12 ms per call on the 2-core EPYC); GPUs need far
// larger operands to fill their tensor cores.
constexpr std::int64_t kCpuSizeCap = 1024;
constexpr std::int64_t kCudaSizeCap = 16384;
// N doubles while a call takes under kLongEnoughCallS and the next size's call, predicted from
// how the time grew from the previous size, stays within kLongestCallS. Both are needed here: a
// shared CPU can make every small call cost a scheduling delay (14 ms for 128x128), so 8x the
// time would stop far below the peak; while the float16/bfloat16 fallback path grows faster than
// N^3 (19 ms at 256, 350 ms at 512), so "under 20 ms" alone would blow the half-second budget.
constexpr double kLongEnoughCallS = 0.02;
constexpr double kLongestCallS = 0.05;
// At each size, calls repeat for kSizingWindowS (at least kFewestCalls) and the fastest decides:
// a single call may be the first at its size (which also packs and picks kernels) or preempted on
// a shared machine. At the chosen size they repeat for kTimingWindowS, and the fastest is the peak.
constexpr double kSizingWindowS = 0.01;
constexpr double kTimingWindowS = 0.1;
constexpr int kFewestCalls = 2;

struct PeakDtype {
  const char* name;
  c10::ScalarType type;
  bool tf32;
};

std::vector<PeakDtype> dtypes_for(const c10::Device& device) {
  std::vector<PeakDtype> dtypes = {
      {"float32", at::kFloat, false}, {"float16", at::kHalf, false}, {"bfloat16", at::kBFloat16, false}};
  if (device.is_cuda()) dtypes.push_back({"tfloat32", at::kFloat, true});
  return dtypes;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

const char* precision_name(at::Float32MatmulPrecision precision) {
  switch (precision) {
    case at::Float32MatmulPrecision::HIGH:
      return "high";
    case at::Float32MatmulPrecision::MEDIUM:
      return "medium";
    case at::Float32MatmulPrecision::HIGHEST:
      break;
  }
  return "highest";
}

// Float32 matmul precision "high" (TF32 on CUDA) for one measurement; the previous one after, so
// the cells that follow in this process are not affected.
class Float32MatmulPrecisionScope {
 public:
  explicit Float32MatmulPrecisionScope(bool tf32) : saved_(at::globalContext().float32MatmulPrecision()) {
    if (tf32) at::globalContext().setFloat32MatmulPrecision("high");
  }
  ~Float32MatmulPrecisionScope() { at::globalContext().setFloat32MatmulPrecision(precision_name(saved_)); }
  Float32MatmulPrecisionScope(const Float32MatmulPrecisionScope&) = delete;
  Float32MatmulPrecisionScope& operator=(const Float32MatmulPrecisionScope&) = delete;

 private:
  at::Float32MatmulPrecision saved_;
};

// One NxN at::mm into a preallocated output, timed with the device synchronised on both sides.
// The second operand is transposed, as torch::nn::Linear multiplies (x @ W^T): that is where the
// workloads' GEMM FLOPs come from, and on a CPU without native float16/bfloat16 GEMM the layouts
// differ by far (measured on the AVX2 EPYC, 2 threads: float16 mm(a, b) 1.2 GFLOP/s, mm(a, b^T)
// 7-12 GFLOP/s; float32 the same either way).
class SquareMatmul {
 public:
  SquareMatmul(const c10::Device& device, c10::ScalarType dtype, std::int64_t n)
      : device_(device),
        n_(n),
        a_(at::randn({n, n}, at::TensorOptions().device(device).dtype(dtype))),
        b_(at::randn({n, n}, a_.options())),
        out_(at::empty({n, n}, a_.options())) {
    detail::synchronize(device_);
  }

  [[nodiscard]] double time_call() {
    const auto start = Clock::now();
    at::mm_out(out_, a_, b_.t());
    detail::synchronize(device_);
    return seconds_since(start);
  }

  [[nodiscard]] std::int64_t size() const { return n_; }

 private:
  c10::Device device_;
  std::int64_t n_;
  at::Tensor a_, b_, out_;
};

struct FastestCall {
  double seconds = std::numeric_limits<double>::infinity();
  int calls = 0;
};

FastestCall fastest_call(SquareMatmul& matmul, double window_s) {
  FastestCall fastest;
  for (const auto start = Clock::now(); fastest.calls < kFewestCalls || seconds_since(start) < window_s;
       ++fastest.calls) {
    fastest.seconds = std::min(fastest.seconds, matmul.time_call());
  }
  return fastest;
}

// How much longer a call at 2N takes than at N: the growth seen from N/2 to N, between 2x (calls
// dominated by a fixed delay) and 8x (by the N^3 FLOPs); 2x at the first size.
double predicted_growth(double previous_s, double current_s) {
  return previous_s > 0.0 ? std::clamp(current_s / previous_s, 2.0, 8.0) : 2.0;
}

// The best throughput over the sizes tried: 128, 256, ... up to the largest within the cap whose
// calls stay within the limits above, which then gets the longer timing window. Bigger is not
// always faster: on a CPU without native float16/bfloat16 GEMM the fallback path is fastest at
// the smallest sizes, and a peak taken only at the largest size would be no roof at all (cells
// then showed 150-300% of it).
struct BestMatmul {
  double flops_per_s = 0.0;
  std::int64_t size = 0;
  int calls = 0;
  std::int64_t largest_size = 0;
};

void keep_if_faster(BestMatmul& best, const SquareMatmul& matmul, const FastestCall& fastest) {
  const auto n = static_cast<double>(matmul.size());
  const double flops_per_s = 2.0 * n * n * n / fastest.seconds;
  if (flops_per_s > best.flops_per_s) best = {flops_per_s, matmul.size(), fastest.calls, best.largest_size};
  best.largest_size = std::max(best.largest_size, matmul.size());
}

BestMatmul best_square_matmul(const c10::Device& device, c10::ScalarType dtype) {
  const std::int64_t cap = device.is_cuda() ? kCudaSizeCap : kCpuSizeCap;
  BestMatmul best;
  double previous_s = 0.0;
  for (std::int64_t n = kFirstSize;; n *= 2) {
    SquareMatmul matmul(device, dtype, n);
    const auto sizing = fastest_call(matmul, kSizingWindowS);
    keep_if_faster(best, matmul, sizing);
    const double call_s = sizing.seconds;
    if (n * 2 > cap || call_s >= kLongEnoughCallS || call_s * predicted_growth(previous_s, call_s) > kLongestCallS) {
      keep_if_faster(best, matmul, fastest_call(matmul, kTimingWindowS));
      return best;
    }
    previous_s = call_s;
  }
}

std::string method_text(const c10::Device& device, const PeakDtype& dtype, const BestMatmul& best) {
  std::string text = "at::mm(a, b^T), best of square sizes " + std::to_string(kFirstSize) + " to " +
                     std::to_string(best.largest_size) + ": " + std::to_string(best.size) + "x" +
                     std::to_string(best.size) + ", fastest of " + std::to_string(best.calls) + " calls, ";
  if (!device.is_cuda()) return text + std::to_string(at::get_num_threads()) + " threads";
  text += "device synchronised after each";
  return dtype.tf32 ? text + ", float32 matmul precision high" : text;
}

reports::GemmPeak measure(const c10::Device& device, const PeakDtype& dtype) {
  reports::GemmPeak peak;
  peak.device = device.str();
  peak.dtype = dtype.name;
  try {
    const Float32MatmulPrecisionScope precision(dtype.tf32);
    const auto best = best_square_matmul(device, dtype.type);
    peak.flops_per_s = best.flops_per_s;
    peak.matrix_size = best.size;
    peak.method = method_text(device, dtype, best);
  } catch (const c10::Error& error) {
    peak.status = reports::MeasurementStatus::kUnavailable;
    peak.reason = error.what_without_backtrace();
  } catch (const std::exception& error) {
    peak.status = reports::MeasurementStatus::kUnavailable;
    peak.reason = error.what();
  }
  return peak;
}

}  // namespace

std::vector<reports::GemmPeak> measure_gemm_peaks(const std::string& device, int threads) {
  if (threads > 0) at::set_num_threads(threads);
  const c10::Device parsed(device);
  std::vector<reports::GemmPeak> peaks;
  for (const auto& dtype : dtypes_for(parsed)) peaks.push_back(measure(parsed, dtype));
  return peaks;
}

}  // namespace ampbench::harness
