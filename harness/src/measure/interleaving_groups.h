// Internal (used by the runner): which of a workload's modes take turns in the same rounds. All of
// them, unless one mode is so much slower that its blocks would spend the time cap in a few rounds
// and leave its partners measured over those alone: on a Xeon with avx512_fp16, SimpleCNN's FP16
// step took 1.1-1.7 s beside 14-20 ms in FP32 and BF16, and the default suite timed FP32 and BF16
// over 2 rounds per worker (docs/performance.md, "Valid numbers"). Such a mode is timed in rounds
// of its own after the others: the others keep their pairing in time (what makes `check` reliable),
// and its own speedup, far from 1 by construction, is estimated from unpaired rounds.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace ampbench::harness::detail {

// The rounds per worker a group of modes (indices into the workload's modes) would get together.
using RoundsOfGroup = std::function<double(const std::vector<std::size_t>& group)>;

// The groups, each in the modes' order, the one they start from first: where the modes together
// would get fewer than reports::kFewRoundsPerWorker rounds per worker, the fewest of the slowest
// (by `step_seconds`), each reports::kFarSlower times every mode that stays, whose absence gives the others
// at least that many go to groups of their own, one each; where no such few exist, all stay
// together.
[[nodiscard]] std::vector<std::vector<std::size_t>> interleaving_groups(const std::vector<double>& step_seconds,
                                                                        const RoundsOfGroup& rounds_of);

}  // namespace ampbench::harness::detail
