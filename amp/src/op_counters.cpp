#include "ampbench/amp/op_counters.h"

#include "op_count_recorder.h"
#include "op_registry.h"

#include <utility>

namespace ampbench::amp {
namespace {

struct Tally {
  c10::ScalarType input;
  c10::ScalarType output;
  std::int64_t calls = 0;
  double flops = 0.0;
};

// Per thread: tallies indexed by op entry id (an op usually has one or two dtype pairs), and the
// order in which (entry, tally) pairs were first seen, so op_counts() reads like the model.
struct ThreadCounters {
  std::vector<std::vector<Tally>> by_entry;
  std::vector<std::pair<std::size_t, std::size_t>> first_seen;
};
thread_local ThreadCounters counters;

}  // namespace

namespace detail {

void record_op_call(std::size_t entry_id, c10::ScalarType input, c10::ScalarType output, double flops) {
  if (entry_id >= counters.by_entry.size()) {
    counters.by_entry.resize(entry_id + 1);
  }
  auto& tallies = counters.by_entry[entry_id];
  for (auto& tally : tallies) {
    if (tally.input == input && tally.output == output) {
      ++tally.calls;
      tally.flops += flops;
      return;
    }
  }
  counters.first_seen.emplace_back(entry_id, tallies.size());
  tallies.push_back({input, output, 1, flops});
}

}  // namespace detail

std::vector<OpCount> op_counts() {
  std::vector<OpCount> counts;
  counts.reserve(counters.first_seen.size());
  for (const auto& [entry_id, index] : counters.first_seen) {
    const Tally& tally = counters.by_entry[entry_id][index];
    const auto& [name, device_type] = detail::entry_identity(entry_id);
    counts.push_back({name, tally.input, tally.output, tally.calls, tally.flops, device_type});
  }
  return counts;
}

void reset_op_counts() { counters = {}; }

double low_precision_flop_share(const std::vector<OpCount>& counts) {
  double total = 0.0;
  double low = 0.0;
  for (const auto& count : counts) {
    total += count.flops;
    if (count.output_dtype == c10::ScalarType::BFloat16 || count.output_dtype == c10::ScalarType::Half) {
      low += count.flops;
    }
  }
  return total > 0.0 ? low / total : 0.0;
}

}  // namespace ampbench::amp
