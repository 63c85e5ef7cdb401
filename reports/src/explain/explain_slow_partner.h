// Private: the explain rules for a mode far slower than its partners (explain.h): the modes of a
// workload take turns in rounds, so a mode a hundred times slower than the others (FP16
// convolutions on a CPU without a fast float16 path, 1.7 s a step beside 20 ms in FP32 on one Xeon)
// would spend the time cap in a couple of rounds. The harness times such a mode in rounds of its own
// (harness interleaving_groups.h), and "timed-apart" says so on its cell; where it could not (the
// others alone would not get their rounds either, or a report from before), "slow-partner" says on
// each fast cell that it was measured over those few rounds only.
#pragma once

#include <vector>

#include "ampbench/reports/report.h"
#include "ampbench/reports/slow_partner_limits.h"

namespace ampbench::reports::detail {

// From this share of the modes' time per round, one partner decided how many rounds there were.
inline constexpr double kDominantPartnerShare = 0.5;

// One "slow-partner" finding per cell whose workers stopped at the time cap with fewer than
// kFewRoundsPerWorker rounds per worker while another mode, kFarSlower times slower, took at least
// the share above of each round's blocks.
void slow_partner_findings(const Report& report, std::vector<Finding>& out);

// One "timed-apart" finding per cell timed in rounds of its own while other modes of its workload
// were timed in rounds too, faster than it, without a worker rerun to explain it.
void timed_apart_findings(const Report& report, std::vector<Finding>& out);

}  // namespace ampbench::reports::detail
