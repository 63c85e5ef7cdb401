#include "machine/gemm_peak.h"

#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <memory>

#include "ampbench/reports/stats.h"
#include "machine/device_hooks.h"
#include "machine/gemm_sizes.h"
#include "measure/interleaved_rounds.h"

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
// At each size, calls repeat for kSizingWindowS (at least kFewestCalls) and the fastest decides: a
// single call may be the first at its size (which also packs and picks kernels) or preempted on a
// shared machine. Sizing's best size and its neighbours among the sizes tried are then timed again
// in kRounds interleaved rounds (block_order's rotation over the dtypes), each dtype sharing
// kTimingWindowS / kRounds of calls per round between its sizes. A dtype's size is the one with the
// best median over the rounds, its peak the fastest call there. Its speed against float32's is
// taken at a size both were timed at (machine/gemm_sizes.h), from each round's fastest calls there;
// their median and its order-statistic interval (ranks 3 and 10 of 12: two rounds either side may
// be preempted) is versus_float32. Timed one dtype after another, the ratio moved with the host
// between them: this Xeon's float16 read 0.71x-1.22x of float32 across runs of identical code, so
// the finding flipped between "native float16 GEMM" and "no gain"; with the size taken from one 10
// ms window it still moved 0.75-0.97 between runs with intervals a few percent wide, for the size
// it landed on; with each dtype at its own best size, one run in 24 set float16 at 1024 against
// float32 at 256 and read it as faster (docs/performance.md, "Which dtype's GEMM is faster").
constexpr double kSizingWindowS = 0.01;
constexpr double kTimingWindowS = 0.24;
constexpr int kFewestCalls = 2;
constexpr std::int64_t kRounds = 12;

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
// calls stay within the limits above. Bigger is not always faster: on a CPU without native
// float16/bfloat16 GEMM the fallback path is fastest at the smallest sizes, and a peak taken only at
// the largest size would be no roof at all (cells then showed 150-300% of it).
struct BestMatmul {
  double flops_per_s = 0.0;  // the fastest call's, at size
  std::int64_t size = 0;
  std::int64_t largest_size = 0;
};

double flops_of(std::int64_t size) {
  const auto n = static_cast<double>(size);
  return 2.0 * n * n * n;
}

BestMatmul best_square_size(const c10::Device& device, c10::ScalarType dtype) {
  const std::int64_t cap = device.is_cuda() ? kCudaSizeCap : kCpuSizeCap;
  BestMatmul best;
  double previous_s = 0.0;
  for (std::int64_t n = kFirstSize;; n *= 2) {
    SquareMatmul matmul(device, dtype, n);
    const double call_s = fastest_call(matmul, kSizingWindowS).seconds;
    if (flops_of(n) / call_s > best.flops_per_s) best = {flops_of(n) / call_s, n, n};
    best.largest_size = n;
    if (n * 2 > cap || call_s >= kLongEnoughCallS || call_s * predicted_growth(previous_s, call_s) > kLongestCallS) {
      return best;
    }
    previous_s = call_s;
  }
}

// One size of one dtype in the rounds: the fastest call of each round, per FLOP.
struct TimedSize {
  std::unique_ptr<SquareMatmul> matmul;
  std::vector<double> round_s_per_flop;
  int calls = 0;
};

// One dtype through the measurement: sized first, then its best size and that size's neighbours
// timed in the rounds, then the size with the best median chosen for its peak.
struct DtypeTiming {
  PeakDtype dtype;
  reports::GemmPeak peak;
  BestMatmul sizing;
  std::vector<TimedSize> sizes;             // empty once unavailable
  std::vector<detail::SizeMedian> medians;  // one per size, once the rounds are over
  std::size_t chosen = 0;                   // the size of sizes the peak is taken at
};

void mark_unavailable(DtypeTiming& timing, std::string reason) {
  timing.peak.status = reports::MeasurementStatus::kUnavailable;
  timing.peak.reason = std::move(reason);
  timing.sizes.clear();
}

template <typename Measure>
void measuring(DtypeTiming& timing, Measure&& measure) {
  try {
    const Float32MatmulPrecisionScope precision(timing.dtype.tf32);
    measure();
  } catch (const c10::Error& error) {
    mark_unavailable(timing, error.what_without_backtrace());
  } catch (const std::exception& error) {
    mark_unavailable(timing, error.what());
  }
}

void size_dtype(const c10::Device& device, DtypeTiming& timing) {
  timing.peak.device = device.str();
  timing.peak.dtype = timing.dtype.name;
  measuring(timing, [&] {
    timing.sizing = best_square_size(device, timing.dtype.type);
    for (const auto n : {timing.sizing.size / 2, timing.sizing.size, timing.sizing.size * 2}) {
      if (n >= kFirstSize && n <= timing.sizing.largest_size)
        timing.sizes.push_back({std::make_unique<SquareMatmul>(device, timing.dtype.type, n), {}, 0});
    }
  });
}

// Every size of a measured dtype gets one entry per round: a failure in any round marks the whole
// dtype unavailable and empties its sizes.
void time_in_rounds(std::vector<DtypeTiming>& timings) {
  for (std::int64_t round = 0; round < kRounds; ++round) {
    for (const auto index : detail::block_order(timings.size(), round)) {
      auto& timing = timings[index];
      const double window_s =
          kTimingWindowS / static_cast<double>(kRounds * std::max<std::size_t>(1, timing.sizes.size()));
      measuring(timing, [&] {
        for (auto& size : timing.sizes) {
          const auto fastest = fastest_call(*size.matmul, window_s);
          size.calls += fastest.calls;
          size.round_s_per_flop.push_back(fastest.seconds / flops_of(size.matmul->size()));
        }
      });
    }
  }
}

void choose_size(DtypeTiming& timing) {
  for (const auto& size : timing.sizes) {
    timing.medians.push_back({size.matmul->size(), reports::summarize(size.round_s_per_flop).median});
  }
  if (!timing.sizes.empty()) timing.chosen = detail::fastest_size(timing.medians);
}

std::string method_text(const c10::Device& device, const DtypeTiming& timing) {
  const auto& chosen = timing.sizes[timing.chosen];
  const auto size = std::to_string(chosen.matmul->size());
  std::string text = "at::mm(a, b^T), square sizes " + std::to_string(kFirstSize) + " to " +
                     std::to_string(timing.sizing.largest_size) + " tried, " + std::to_string(timing.sizes.size()) +
                     " of them timed in " + std::to_string(kRounds) +
                     " rounds interleaved with the other dtypes: " + size + "x" + size +
                     " fastest by its median, the fastest of its " + std::to_string(chosen.calls) + " calls there, ";
  if (!device.is_cuda()) return text + std::to_string(at::get_num_threads()) + " threads";
  text += "device synchronised after each";
  return timing.dtype.tf32 ? text + ", float32 matmul precision high" : text;
}

// Round by round, float32's time per FLOP over this dtype's, at a size both were timed at where
// there is one (matrix_size says which), else each at its own peak's size (matrix_size 0).
reports::GemmSpeedRatio speed_versus(const DtypeTiming& timing, const DtypeTiming& float32) {
  const auto common = detail::common_size(timing.medians, float32.medians);
  const auto& own = timing.sizes[common ? common->first : timing.chosen];
  const auto& reference = float32.sizes[common ? common->second : float32.chosen];
  std::vector<double> speed_ratios;
  for (std::size_t round = 0; round < own.round_s_per_flop.size(); ++round) {
    speed_ratios.push_back(reference.round_s_per_flop[round] / own.round_s_per_flop[round]);
  }
  const auto summary = reports::summarize(speed_ratios);
  return {{summary.median, summary.ci_low, summary.ci_high}, kRounds, common ? own.matmul->size() : 0};
}

reports::GemmPeak finished_peak(const c10::Device& device, const DtypeTiming& timing, const DtypeTiming& float32) {
  auto peak = timing.peak;
  if (peak.status != reports::MeasurementStatus::kMeasured) return peak;
  const auto& calls = timing.sizes[timing.chosen].round_s_per_flop;
  peak.flops_per_s = 1.0 / *std::min_element(calls.begin(), calls.end());
  peak.matrix_size = timing.sizes[timing.chosen].matmul->size();
  peak.method = method_text(device, timing);
  if (&timing != &float32 && !float32.sizes.empty()) peak.versus_float32 = speed_versus(timing, float32);
  return peak;
}

}  // namespace

std::vector<reports::GemmPeak> measure_gemm_peaks(const std::string& device, int threads) {
  if (threads > 0) at::set_num_threads(threads);
  const c10::Device parsed(device);
  std::vector<DtypeTiming> timings;
  for (const auto& dtype : dtypes_for(parsed)) {
    timings.push_back({dtype, {}, {}, {}, {}, 0});
    size_dtype(parsed, timings.back());
  }
  time_in_rounds(timings);
  for (auto& timing : timings) choose_size(timing);
  std::vector<reports::GemmPeak> peaks;  // dtypes_for lists float32 first: the others are paired with it
  for (const auto& timing : timings) peaks.push_back(finished_peak(parsed, timing, timings.front()));
  return peaks;
}

}  // namespace ampbench::harness
