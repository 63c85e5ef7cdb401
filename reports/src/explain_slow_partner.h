// Private: the explain rule for a mode whose rounds were cut short by a far slower partner
// (explain.h): the modes of a workload take turns in rounds, so a mode a hundred times slower than
// the others (FP16 convolutions on a CPU without a fast float16 path, 1.7 s a step beside 20 ms in
// FP32 on one Xeon) spends the time cap in a couple of rounds, and the fast modes are measured over
// those few rounds only.
#pragma once

#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

// Under this many rounds per worker a cell is short of rounds: half the ~20 that the rounds sizing
// aims for (harness interleaved_rounds.h auto_steps_per_round).
inline constexpr double kFewRoundsPerWorker = 10.0;

// From this share of the modes' time per round, one partner decided how many rounds there were.
inline constexpr double kDominantPartnerShare = 0.5;

// One "slow-partner" finding per cell whose workers stopped at the time cap with fewer rounds per
// worker than above while another mode's blocks took at least the share above of each round.
void slow_partner_findings(const Report& report, std::vector<Finding>& out);

}  // namespace ampbench::reports::detail
