// The statistics at scale: median_ratio (the bootstrap) and a whole compare of one cell, from 1,000
// to kMaxStepSamplesPerCell step times. Above 2,000 samples the bootstrap draws medians from order
// statistics, so the cost should grow like the sort (n log n), not like 2000 n.
#include <benchmark/benchmark.h>

#include <vector>

#include "ampbench/reports/compare.h"
#include "ampbench/reports/report_json.h"
#include "ampbench/reports/stats.h"

namespace {

std::vector<double> samples(std::size_t n, double scale) {
  std::vector<double> values(n);
  std::uint64_t state = 12345;
  for (double& value : values) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    value = scale * (1.0 + static_cast<double>(state >> 11) * 0x1.0p-53);
  }
  return values;
}

void BM_MedianRatio(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto a = samples(n, 1.0);
  const auto b = samples(n, 1.1);
  for (auto _ : state) benchmark::DoNotOptimize(ampbench::reports::median_ratio(a, b));
}
BENCHMARK(BM_MedianRatio)
    ->RangeMultiplier(10)
    ->Range(1000, ampbench::reports::kMaxStepSamplesPerCell)
    ->Unit(benchmark::kMillisecond);

void BM_CompareOneCell(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  ampbench::reports::Report base;
  base.cells.resize(1);
  base.cells[0].step_times_s = samples(n, 1.0);
  auto current = base;
  current.cells[0].step_times_s = samples(n, 1.1);
  for (auto _ : state) benchmark::DoNotOptimize(ampbench::reports::compare_reports(base, current));
}
BENCHMARK(BM_CompareOneCell)
    ->RangeMultiplier(10)
    ->Range(1000, ampbench::reports::kMaxStepSamplesPerCell)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
