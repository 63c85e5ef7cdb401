// When a mode is too slow to take turns with the others: shared by the harness, which times such a
// mode in rounds of its own (interleaving_groups.h), and by explain, which says so, or says where a
// cell was still measured over the few rounds such a partner left it (explain_slow_partner.h).
#pragma once

namespace ampbench::reports {

// Under this many rounds per worker a cell is short of rounds: half the ~20 that the rounds sizing
// aims for (harness interleaved_rounds.h auto_steps_per_round).
inline constexpr double kFewRoundsPerWorker = 10.0;

// A mode is far slower than another with a step at least this many times the other's; only such a
// mode leaves its partners' rounds (the modes of a workload otherwise keep their pairing in time,
// however few rounds they get). On CPUs the default suite's modes were within 2.2x of each other,
// except SimpleCNN's FP16 on a Xeon with avx512_fp16 (80x).
inline constexpr double kFarSlower = 10.0;

}  // namespace ampbench::reports
