"""bench/benchkit/matched_state.py: paired and alone compared over the rounds of the same machine state."""

import statistics
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from benchkit import intervals, matched_state  # noqa: E402

USUAL_PROBE = 1e-3
MODES = ("fp32", "bf16")


def cell(workload, mode, rounds):
    """A report's cell of two steps per round; `rounds` is [(probe ratio to usual, step seconds)]."""
    return {"status": "ok", "workload": workload, "mode": mode,
            "step_times_s": [t for _, t in rounds for _ in range(2)],
            "rounds": {"probe_s": [r * USUAL_PROBE for r, _ in rounds],
                       "step_round": [i for i in range(len(rounds)) for _ in range(2)]}}


def rounds_of(step_s, usual_rounds, slow_rounds):
    """Usual-state rounds at step_s and slow ones (probe 1.5x, steps 1.4x as long)."""
    return [(1.0, step_s)] * usual_rounds + [(1.5, 1.4 * step_s)] * slow_rounds


class MatchedStateTest(unittest.TestCase):
    def test_round_medians_pair_each_round_with_its_probe(self) -> None:
        c = cell("w", "fp32", [(1.0, 2.0), (1.5, 3.0)])
        c["step_times_s"][1] = 4.0  # round 0: steps 2 and 4
        self.assertEqual(matched_state.round_medians(c), [(1.0 * USUAL_PROBE, 3.0, 0), (1.5 * USUAL_PROBE, 3.0, 0)])
        c["rounds"]["round_replicate"] = [0, 1]
        self.assertEqual([worker for *_, worker in matched_state.round_medians(c)], [0, 1])

    def test_a_run_that_spent_longer_in_the_slow_state_agrees_at_the_same_state(self) -> None:
        # Paired spends 60% of its rounds slow, alone 20%: over every round paired reads slower,
        # over the usual state's rounds both are the same.
        paired = {"cells": [cell("w", "fp32", rounds_of(0.010, 8, 12)), cell("w", "bf16", rounds_of(0.005, 8, 12))]}
        alone = [{"cells": [cell("w", "fp32", rounds_of(0.010, 16, 4)), cell("w", "bf16", [(1.0, 9.0)] * 20)]},
                 {"cells": [cell("w", "fp32", [(1.0, 9.0)] * 20), cell("w", "bf16", rounds_of(0.005, 16, 4))]}]
        rounds, usual = matched_state.pooled_rounds([{"paired": [paired], "alone": alone}], MODES)
        self.assertEqual(usual, USUAL_PROBE)
        self.assertEqual(rounds["paired"][("w", "fp32")], {(0, 0, 0): [0.010] * 8})
        self.assertEqual(rounds["alone"][("w", "fp32")], {(0, 0, 0): [0.010] * 16})  # not the bf16 run's fp32 cell
        rows, verdicts = matched_state.matched_rows(rounds, {"python": None, "bare": None}, ["w"], MODES)
        self.assertEqual(rows[0]["rounds"], [8, 16])
        self.assertAlmostEqual(rows[0]["paired_over_alone_time"].value, 1.0)
        self.assertAlmostEqual(rows[1]["paired_over_alone_speedup"].value, 1.0)
        self.assertTrue(all(ok for *_, ok in verdicts))
        self.assertNotIn("paired_over_python_speedup", rows[1])

    def test_a_mode_slower_paired_at_the_same_state_misses_its_target(self) -> None:
        rounds = {"paired": {("w", "fp32"): {0: [0.011] * 10}, ("w", "bf16"): {0: [0.005] * 10}},
                  "alone": {("w", "fp32"): {1: [0.010] * 10}, ("w", "bf16"): {2: [0.005] * 10}}}
        python = {("w", "fp32"): {0: [0.0125] * 10}, ("w", "bf16"): {0: [0.006] * 10}}
        rows, verdicts = matched_state.matched_rows(rounds, {"python": python}, ["w"], MODES)
        self.assertAlmostEqual(rows[0]["paired_over_alone_time"].value, 1.1)
        self.assertAlmostEqual(rows[1]["paired_over_alone_speedup"].value, 1.1)
        self.assertAlmostEqual(rows[1]["paired_over_python_speedup"].value, 2.2 / 2.5 * 1.2)
        # fp32's time; bf16's time (the same), its speedup over alone's, over Python's (within 10%).
        self.assertEqual([ok for *_, ok in verdicts], [False, True, False, True])

    def test_the_bare_loop_compares_step_times_and_speedups(self) -> None:
        rounds = {"paired": {("w", "fp32"): {0: [0.010] * 10}, ("w", "bf16"): {0: [0.005] * 10}},
                  "alone": {("w", "fp32"): {1: [0.010] * 10}, ("w", "bf16"): {2: [0.005] * 10}}}
        bare = {("w", "fp32"): {0: [0.0101] * 10}, ("w", "bf16"): {0: [0.0056] * 10}}
        rows, verdicts = matched_state.matched_rows(rounds, {"bare": bare}, ["w"], MODES)
        self.assertAlmostEqual(rows[0]["paired_over_bare_time"].value, 0.010 / 0.0101)
        self.assertAlmostEqual(rows[1]["paired_over_bare_time"].value, 0.005 / 0.0056)
        self.assertAlmostEqual(rows[1]["paired_over_bare_speedup"].value, 2.0 / (0.0101 / 0.0056))
        self.assertNotIn("paired_over_python_speedup", rows[1])
        # fp32: alone time, bare time; bf16: alone time and speedup, bare time (0.89) and speedup (1.11).
        self.assertEqual([(cell, name, ok) for cell, name, ok in verdicts if not ok],
                         [("w/bf16", "paired_over_bare_time", False), ("w/bf16", "paired_over_bare_speedup", False)])

    def test_a_miss_against_pythons_loop_that_the_bare_loop_shares_is_the_python_loops_own(self) -> None:
        # Python adds 0.2 ms to FP32's 0.25 ms step and 0.4 ms to BF16's 2.5 ms: its speedup reads
        # 0.156 where both C++ loops read 0.1.
        rounds = {"paired": {("w", "fp32"): {0: [0.25e-3] * 10}, ("w", "bf16"): {0: [2.5e-3] * 10}},
                  "alone": {("w", "fp32"): {1: [0.25e-3] * 10}, ("w", "bf16"): {2: [2.5e-3] * 10}}}
        bare = {("w", "fp32"): {0: [0.25e-3] * 10}, ("w", "bf16"): {0: [2.5e-3] * 10}}
        python = {("w", "fp32"): {0: [0.45e-3] * 10}, ("w", "bf16"): {0: [2.9e-3] * 10}}
        rows, verdicts = matched_state.matched_rows(rounds, {"bare": bare, "python": python}, ["w"], MODES)
        self.assertAlmostEqual(rows[1]["bare_over_python_speedup"].value, 0.1 / (0.45 / 2.9))
        self.assertAlmostEqual(rows[1]["paired_over_python_speedup"].value, rows[1]["bare_over_python_speedup"].value)
        self.assertEqual([(cell, name) for cell, name, ok in verdicts if not ok],
                         [("w/bf16", "paired_over_python_speedup")])
        value = lambda figure: figure.value
        self.assertEqual(matched_state.python_loop_misses(rows, value), {"w/bf16"})
        # Where ampbench's speedup is further from Python's than the bare loop's (0.644 against
        # 0.732), the miss is not Python's alone.
        bare[("w", "bf16")] = {0: [2.2e-3] * 10}
        rows, _ = matched_state.matched_rows(rounds, {"bare": bare, "python": python}, ["w"], MODES)
        self.assertEqual(matched_state.python_loop_misses(rows, value), set())
        # Where it lies between the two loops' (0.644, the bare loop's 0.575), the bare loop misses
        # by more, although ampbench's differs from it by over 5%.
        bare[("w", "bf16")] = {0: [2.8e-3] * 10}
        rows, verdicts = matched_state.matched_rows(rounds, {"bare": bare, "python": python}, ["w"], MODES)
        self.assertIn(("w/bf16", "paired_over_bare_speedup", False), verdicts)
        self.assertEqual(matched_state.python_loop_misses(rows, value), {"w/bf16"})
        # Without the bare loop there is nothing to tell it by.
        rows, _ = matched_state.matched_rows(rounds, {"python": python}, ["w"], MODES)
        self.assertNotIn("bare_over_python_speedup", rows[1])
        self.assertEqual(matched_state.python_loop_misses(rows, value), set())

    def test_pooled_loop_steps_keep_the_loops_usual_state(self) -> None:
        samples = {"w/fp32": {"step_s": [0.01, 0.02, 0.01], "probe_s": [1e-3, 2e-3, 1.05e-3]}}
        reps = [{"bare_samples": samples}, {"bare_samples": samples}]
        self.assertEqual(matched_state.pooled_loop_steps(reps, "bare"), {("w", "fp32"): {0: [0.01] * 2, 1: [0.01] * 2}})
        self.assertIsNone(matched_state.pooled_loop_steps(reps, "python"))

    def test_too_few_rounds_give_no_figure(self) -> None:
        rounds = {"paired": {("w", "fp32"): {0: [0.01] * 2, 1: [0.01] * 2}}, "alone": {("w", "fp32"): {2: [0.01] * 10}}}
        rows, verdicts = matched_state.matched_rows(rounds, {}, ["w"], ("fp32",))
        self.assertNotIn("paired_over_alone_time", rows[0])
        self.assertEqual(verdicts, [])


class OverProcessesTest(unittest.TestCase):
    # Three workers of their own speeds (0.9x, 1x, 1.1x), 20 rounds each that barely differ.
    SPEEDS = (0.9, 1.0, 1.1)

    def workers(self, step_s, first=0):
        return {first + i: [step_s * speed * (1 + 0.001 * r) for r in range(20)] for i, speed in enumerate(self.SPEEDS)}

    def test_a_workers_own_speed_widens_a_step_time_ratio_beyond_an_interval_over_rounds(self) -> None:
        paired, alone = self.workers(0.010), self.workers(0.010, first=3)
        over_processes = matched_state.ratio_of_medians_over_processes([paired], [alone])
        over_rounds = intervals.bootstrap_ratio_of_medians([sum(paired.values(), [])], [sum(alone.values(), [])])
        self.assertAlmostEqual(over_processes.value, over_rounds.value)
        # Resampling 3 workers can give the slowest three times over the fastest three times.
        self.assertLess(over_processes.low, 0.92)
        self.assertGreater(over_processes.high, 1.08)
        self.assertGreater(over_processes.high - over_processes.low, 2 * (over_rounds.high - over_rounds.low))

    def test_a_paired_workers_own_speed_cancels_in_its_speedup(self) -> None:
        fp32, bf16 = self.workers(0.010), self.workers(0.005)  # the same three workers, bf16 twice as fast in each
        speedup = matched_state.ratio_of_medians_over_processes([fp32], [bf16])
        self.assertAlmostEqual(speedup.value, 2.0)
        self.assertAlmostEqual(speedup.low, 2.0, places=6)
        self.assertAlmostEqual(speedup.high, 2.0, places=6)
        # The same values in other processes are drawn independently: the speeds no longer cancel.
        apart = matched_state.ratio_of_medians_over_processes([fp32], [self.workers(0.005, first=3)])
        self.assertLess(apart.low, 1.9)

    def test_one_process_gives_the_figure_without_an_interval(self) -> None:
        fp32 = self.workers(0.010)
        ratio = matched_state.ratio_of_medians_over_processes([fp32], [{7: [0.004, 0.005, 0.006]}])
        self.assertAlmostEqual(ratio.value, statistics.median(sum(fp32.values(), [])) / 0.005)
        self.assertNotEqual(ratio.low, ratio.low)
        self.assertNotEqual(ratio.high, ratio.high)

    def test_an_empty_sample_gives_nan(self) -> None:
        ratio = matched_state.ratio_of_medians_over_processes([{0: [1.0]}], [{}])
        self.assertNotEqual(ratio.value, ratio.value)


class RatioOfMediansTest(unittest.TestCase):
    def test_one_over_one_is_the_median_ratio(self) -> None:
        a, b = [1.0, 2.0, 3.0, 7.0], [2.0, 2.5, 9.0]
        self.assertEqual(intervals.bootstrap_ratio_of_medians([a], [b]), intervals.bootstrap_median_ratio(a, b))

    def test_four_samples_give_the_ratio_of_two_ratios(self) -> None:
        a, b, c, d = [4.0, 4.0], [2.0, 2.0, 2.0], [1.0, 3.0, 5.0], [10.0]
        ratio = intervals.bootstrap_ratio_of_medians([a, b], [c, d])
        self.assertAlmostEqual(ratio.value, (4.0 * 2.0) / (3.0 * 10.0))
        self.assertLessEqual(ratio.low, ratio.value)
        self.assertGreaterEqual(ratio.high, ratio.value)
        self.assertGreaterEqual(ratio.low, 8.0 / 50.0)  # c's largest median a resample can give
        self.assertLessEqual(ratio.high, 8.0 / 10.0)

    def test_an_empty_sample_gives_nan(self) -> None:
        self.assertNotEqual(intervals.bootstrap_ratio_of_medians([[1.0], []], [[1.0]]).value,
                            intervals.bootstrap_ratio_of_medians([[1.0], []], [[1.0]]).value)


if __name__ == "__main__":
    unittest.main()
