// The per-chip metric table. Every name below was accepted by cuptiProfilerHostConfigAddMetrics
// (CUDA toolkit 13.0) for every chip of its family; the descriptions quoted are what
// cuptiProfilerHostGetMetricProperties says about them.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "profile/cupti/cupti_metric_sets.h"

namespace ampbench::harness::cupti {
namespace {

enum class ChipFamily { kTuring, kAmpere, kAda, kHopper, kBlackwell };

struct ChipRow {
  std::string_view chip;
  ChipFamily family;
};

// Turing (compute capability 7.5) to Blackwell: CUPTI's range profiler needs 7.5 or newer.
constexpr std::array kChips{
    ChipRow{"TU102", ChipFamily::kTuring},    ChipRow{"TU104", ChipFamily::kTuring},
    ChipRow{"TU106", ChipFamily::kTuring},    ChipRow{"TU116", ChipFamily::kTuring},
    ChipRow{"TU117", ChipFamily::kTuring},    ChipRow{"GA100", ChipFamily::kAmpere},
    ChipRow{"GA102", ChipFamily::kAmpere},    ChipRow{"GA103", ChipFamily::kAmpere},
    ChipRow{"GA104", ChipFamily::kAmpere},    ChipRow{"GA106", ChipFamily::kAmpere},
    ChipRow{"GA107", ChipFamily::kAmpere},    ChipRow{"GA10B", ChipFamily::kAmpere},
    ChipRow{"AD102", ChipFamily::kAda},       ChipRow{"AD103", ChipFamily::kAda},
    ChipRow{"AD104", ChipFamily::kAda},       ChipRow{"AD106", ChipFamily::kAda},
    ChipRow{"AD107", ChipFamily::kAda},       ChipRow{"GH100", ChipFamily::kHopper},
    ChipRow{"GB100", ChipFamily::kBlackwell}, ChipRow{"GB102", ChipFamily::kBlackwell},
    ChipRow{"GB110", ChipFamily::kBlackwell}, ChipRow{"GB10B", ChipFamily::kBlackwell},
    ChipRow{"GB202", ChipFamily::kBlackwell}, ChipRow{"GB203", ChipFamily::kBlackwell},
    ChipRow{"GB205", ChipFamily::kBlackwell}, ChipRow{"GB206", ChipFamily::kBlackwell},
    ChipRow{"GB207", ChipFamily::kBlackwell}, ChipRow{"GB20B", ChipFamily::kBlackwell},
};

struct ChipBelowTuring {
  std::string_view chip;
  std::string_view what;
};

// Chips cuptiProfilerHostGetSupportedChips lists (13.0) that the range profiler cannot collect on,
// because CUPTI's range profiler needs compute capability 7.5. The host API still initialises a
// range profiler for GV100 and schedules its metrics, so only this table stops a V100 reaching
// cuptiRangeProfilerEnable; for GV11B the host API itself says CUPTI_ERROR_NOT_SUPPORTED.
constexpr std::array kChipsBelowTuring{
    ChipBelowTuring{"GV100", "Volta, compute capability 7.0 (V100, TITAN V)"},
    ChipBelowTuring{"GV11B", "Volta, compute capability 7.2 (Jetson AGX Xavier)"},
};

// Every family: how many tensor-pipe instructions ran, and the SM cycles the range lasted (the
// slowest SM's count, so it is the range's length), which turns the percentages into cycles.
std::vector<MetricRequest> with_instructions_and_cycles(std::vector<MetricRequest> metrics,
                                                        std::string instructions_metric) {
  metrics.push_back({std::move(instructions_metric), "instructions"});
  metrics.push_back({"sm__cycles_elapsed.max", "cycles"});
  return metrics;
}

std::vector<MetricRequest> metric_set_of(ChipFamily family) {
  switch (family) {
    case ChipFamily::kTuring:
    case ChipFamily::kAmpere:
      // "# of cycles where tensor pipe was active (HMMA ops)" (HMMA/HFMA2.MMA on GA100): the
      // FP16/BF16/TF32 matrix instructions mixed precision is meant to use.
      return with_instructions_and_cycles(
          {{"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "percent"}},
          "sm__inst_executed_pipe_tensor.sum");
    case ChipFamily::kAda:
      // The same counters, but CUPTI marks the unsuffixed names "[DEPRECATED: use ..._v2
      // instead]" on every AD10x chip, so the _v2 names are the ones that will stay.
      return with_instructions_and_cycles(
          {{"sm__pipe_tensor_op_hmma_cycles_active_v2.avg.pct_of_peak_sustained_active", "percent"}},
          "sm__inst_executed_pipe_tensor_v2.sum");
    case ChipFamily::kHopper:
      // On GH100 the HMMA pipe counter covers "HMMA/HFMA2.MMA/HGMMA/QGMMA ops", i.e. it includes
      // the warpgroup MMAs (wgmma) that Hopper GEMMs use. The _type_hmma_hgmma_qgmma variant leaves
      // out HFMA2.MMA (packed FMA, not matrix work), and the gmma instruction count tells whether
      // the kernels used wgmma at all or only Ampere-style mma.sync.
      return with_instructions_and_cycles(
          {{"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "percent"},
           {"sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active", "percent"},
           {"sm__inst_executed_pipe_tensor_op_gmma.sum", "instructions"}},
          "sm__inst_executed_pipe_tensor.sum");
    case ChipFamily::kBlackwell:
      // Blackwell has no sm__pipe_tensor_op_hmma_* (CUPTI refuses it); the HMMA subpipe counter
      // covers "HMMA/UTCHMMA/UTCQMMA/UTCOMMA ops" on GB10x/GB110 (tcgen05 MMAs included) and
      // "HMMA/QMMA/OMMA ops" on GB20x. The whole tensor pipe is added too: it also counts the
      // integer (imma) and, on GB10x, FP64 (dmma) subpipes, so the gap between the two is tensor
      // work that is not mixed precision's.
      return with_instructions_and_cycles(
          {{"sm__pipe_tensor_subpipe_hmma_cycles_active.avg.pct_of_peak_sustained_active", "percent"},
           {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "percent"}},
          "sm__inst_executed_pipe_tensor.sum");
  }
  throw std::logic_error("metric_set_of: a chip family without a metric set");
}

std::string known_chips_text() {
  std::string text;
  for (const auto& row : kChips) text += (text.empty() ? "" : ", ") + std::string(row.chip);
  return text;
}

}  // namespace

std::vector<std::string_view> chips_with_metric_sets() {
  std::vector<std::string_view> chips;
  for (const auto& row : kChips) chips.push_back(row.chip);
  return chips;
}

std::vector<std::string_view> chips_without_range_profiler() {
  std::vector<std::string_view> chips;
  for (const auto& row : kChipsBelowTuring) chips.push_back(row.chip);
  return chips;
}

std::vector<MetricRequest> tensor_core_metric_set(std::string_view chip) {
  const auto row = std::find_if(kChips.begin(), kChips.end(), [&](const ChipRow& r) { return r.chip == chip; });
  const auto old = std::find_if(kChipsBelowTuring.begin(), kChipsBelowTuring.end(),
                                [&](const ChipBelowTuring& r) { return r.chip == chip; });
  if (old != kChipsBelowTuring.end()) {
    throw std::invalid_argument("unsupported chip '" + std::string(chip) + "' (" + std::string(old->what) +
                                "): CUPTI's range profiler needs compute capability 7.5 or newer (Turing to "
                                "Blackwell), so tensor-core counters cannot be read on it");
  }
  if (row == kChips.end()) {
    throw std::invalid_argument("unsupported chip '" + std::string(chip) +
                                "': ampbench has no tensor-core metric set for it (known: " + known_chips_text() + ")");
  }
  return metric_set_of(row->family);
}

std::vector<std::string> metric_names(const std::vector<MetricRequest>& requests) {
  std::vector<std::string> names;
  for (const auto& request : requests) names.push_back(request.name);
  return names;
}

}  // namespace ampbench::harness::cupti
