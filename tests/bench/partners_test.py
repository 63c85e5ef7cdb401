"""bench/partners.py: which arrangements it runs, and its figures from hand-made reports."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import partners  # noqa: E402

PROBE_S = 1e-3


def cell(mode, step_s, host_s=None, first_s=None, rounds=4, per_round=3):
    """A report's cell: `rounds` rounds of `per_round` steps of step_s, each round's first step
    first_s when given; host_s per step on a GPU."""
    steps = [(first_s if first_s is not None and i == 0 else step_s) for _ in range(rounds) for i in range(per_round)]
    return {"status": "ok", "mode": mode, "step_times_s": steps,
            "host_step_times_s": [host_s] * len(steps) if host_s is not None else None,
            "rounds": {"step_time": {"value": step_s}, "step_time_s": [step_s] * rounds,
                       "probe_s": [PROBE_S] * rounds, "round_replicate": [0] * rounds,
                       "step_round": [r for r in range(rounds) for _ in range(per_round)]}}


class PartnersTest(unittest.TestCase):
    def test_every_amp_mode_is_run_alone_beside_fp32_beside_each_other_and_in_the_suite(self) -> None:
        self.assertEqual(partners.arrangements(["fp16", "bf16"]),
                         {"alone-fp16": "fp16", "alone-bf16": "bf16", "fp32+fp16": "fp32,fp16",
                          "fp32+bf16": "fp32,bf16", "fp16+bf16": "fp16,bf16", "suite": None})

    def test_a_steps_place_restarts_with_every_round_and_every_replicate(self) -> None:
        # Replicate 0's rounds 0 and 1, then replicate 1's round 0.
        self.assertEqual(partners.positions([0, 0, 0, 1, 1, 0, 0]), [0, 1, 2, 0, 1, 0, 1])

    def test_figures_are_against_the_mode_alone_in_the_same_repetition(self) -> None:
        # Repetition 0: beside FP32, fp16's step and host time are 10% longer and the first step of
        # each round 30% longer than the later ones; repetition 1: the whole machine 2x slower, the
        # same 10% beside FP32.
        reps = []
        for scale in (1.0, 2.0):
            reps.append({
                "alone-fp16": {"cells": [cell("fp16", 3e-3 * scale, host_s=3e-3 * scale)]},
                "fp32+fp16": {"cells": [cell("fp32", 15e-3 * scale),
                                        cell("fp16", 3.3e-3 * scale, host_s=3.3e-3 * scale, first_s=4.29e-3 * scale)]},
            })
        table, usual = partners.ratios(reps, ["fp16"])
        self.assertEqual(usual, PROBE_S)
        for ratio in table[("fp32+fp16", "fp16", "step_s")] + table[("fp32+fp16", "fp16", "host_step_s")]:
            self.assertAlmostEqual(ratio, 1.1)
        for ratio in table[("fp32+fp16", "fp16", "first_over_later")]:
            self.assertAlmostEqual(ratio, 1.3)
        self.assertEqual(table[("alone-fp16", "fp16", "step_s")], [3e-3, 6e-3])  # alone itself: seconds
        self.assertEqual(table[("alone-fp16", "fp16", "first_over_later")], [1.0, 1.0])
        self.assertNotIn(("fp32+fp16", "fp32", "step_s"), table)  # FP32 is a partner, not measured

    def test_a_cpu_report_has_no_host_time_and_a_failed_cell_no_figures(self) -> None:
        failed = cell("bf16", 2e-3)
        failed["status"] = "failed"
        reps = [{"alone-bf16": {"cells": [cell("bf16", 2e-3)]}, "fp32+bf16": {"cells": [failed]}}]
        table, _ = partners.ratios(reps, ["bf16"])
        self.assertNotIn(("alone-bf16", "bf16", "host_step_s"), table)
        self.assertFalse([key for key in table if key[0] == "fp32+bf16"])


if __name__ == "__main__":
    unittest.main()
