// Which of the square sizes timed in the GEMM peak's interleaved rounds decide a dtype's peak, and
// at which size its speed is set against float32's (machine/gemm_peak.cpp). Torch-free, so the
// choices are tested on hand-made medians (tests/harness/gemm_sizes_test.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ampbench::harness::detail {

// One size a dtype was timed at: N and the median over the rounds of each round's fastest call,
// in seconds per FLOP (lower is faster).
struct SizeMedian {
  std::int64_t size = 0;
  double median_s_per_flop = 0.0;
};

// The index of the size with the fastest median: where the dtype's peak is taken. Requires sizes
// to be non-empty.
[[nodiscard]] inline std::size_t fastest_size(const std::vector<SizeMedian>& sizes) {
  const auto fastest = std::min_element(sizes.begin(), sizes.end(), [](const SizeMedian& a, const SizeMedian& b) {
    return a.median_s_per_flop < b.median_s_per_flop;
  });
  return static_cast<std::size_t>(fastest - sizes.begin());
}

// The indices (into dtype, into float32) of a size both were timed at, the one where the two ran
// fastest together (the product of their medians least); nullopt when they share no size. Each
// dtype's own fastest size can differ (one run of 24 on the Xeon took float32 at 256 and float16
// at 1024, and read float16 as faster); at a common size the ratio is of the two dtypes alone.
// Choosing by both medians, not by either one, keeps the choice from favouring either side: noise
// that makes one dtype look fast at a size moves the ratio one way, the other's the other way.
[[nodiscard]] inline std::optional<std::pair<std::size_t, std::size_t>> common_size(
    const std::vector<SizeMedian>& dtype, const std::vector<SizeMedian>& float32) {
  std::optional<std::pair<std::size_t, std::size_t>> best;
  double best_product = 0.0;
  for (std::size_t i = 0; i < dtype.size(); ++i) {
    for (std::size_t j = 0; j < float32.size(); ++j) {
      if (dtype[i].size != float32[j].size) continue;
      const double product = dtype[i].median_s_per_flop * float32[j].median_s_per_flop;
      if (!best || product < best_product) {
        best = std::pair{i, j};
        best_product = product;
      }
    }
  }
  return best;
}

}  // namespace ampbench::harness::detail
