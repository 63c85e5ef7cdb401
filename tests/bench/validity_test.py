"""bench/validity.py: the per-repetition figures and how a miss against PyTorch's loop is told."""

import statistics
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import validity  # noqa: E402


def repetition(python_fp32_s):
    """One repetition's step times per kind: SimpleNet-like, FP16 ten times FP32's step in every C++
    loop; Python's FP32 step is python_fp32_s, its FP16 step 2.9 ms."""
    cpp = {("w", "fp32"): 0.25e-3, ("w", "fp16"): 2.5e-3, ("w", "bf16"): 0.4e-3}
    return {"paired": dict(cpp), "alone": dict(cpp), "bare": dict(cpp),
            "python": {("w", "fp32"): python_fp32_s, ("w", "fp16"): 2.9e-3,
                       ("w", "bf16"): 0.4e-3 * python_fp32_s / 0.25e-3}}


class ValidityTest(unittest.TestCase):
    def test_a_speedup_python_reads_nearer_one_is_missed_and_marked_as_the_bare_loops_too(self) -> None:
        reps = [repetition(0.45e-3), repetition(0.43e-3), repetition(0.47e-3)]
        rows, verdicts = validity.summarise(reps, ["w"])
        fp16 = rows[1]
        self.assertEqual(fp16["cell"], "w/fp16")
        self.assertEqual(fp16["paired_over_alone_time"], [1.0] * 3)
        self.assertAlmostEqual(statistics.median(fp16["bare_over_python_speedup"]), 0.1 / (0.45 / 2.9))
        self.assertEqual(fp16["paired_over_python_speedup"], fp16["bare_over_python_speedup"])
        missed = [(cell, name) for cell, name, ok in verdicts if not ok]
        self.assertEqual(missed, [("w/fp16", "paired_over_python_speedup")])  # bf16's Python step scales with FP32's
        python_loops = validity.matched_state.python_loop_misses(rows, statistics.median)
        self.assertEqual(python_loops, {"w/fp16"})
        (entry,) = [t for t in validity.targets_json(verdicts, python_loops) if not t["met"]]
        self.assertEqual(entry, {"cell": "w/fp16", "figure": "paired_over_python_speedup", "met": False,
                                 "bare_loop_too": True})
        self.assertTrue(all("bare_loop_too" not in t for t in validity.targets_json(verdicts, set())))

    def test_without_the_bare_loop_no_miss_is_put_on_python(self) -> None:
        reps = [{k: v for k, v in repetition(0.45e-3).items() if k != "bare"}]
        rows, verdicts = validity.summarise(reps, ["w"])
        self.assertEqual(rows[1]["bare_over_python_speedup"], [])
        self.assertEqual(validity.matched_state.python_loop_misses(rows, statistics.median), set())
        self.assertIn(("w/fp16", "paired_over_python_speedup", False), verdicts)


if __name__ == "__main__":
    unittest.main()
