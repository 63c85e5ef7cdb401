"""The statistics and verdicts of bench/side_by_side.py, against hand-computed values."""

import contextlib
import io
import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import side_by_side as sbs  # noqa: E402
from benchkit import intervals  # noqa: E402


class BootstrapMedianRatioTest(unittest.TestCase):
    def test_constant_samples_give_a_point_interval(self) -> None:
        ratio = intervals.bootstrap_median_ratio([2.0, 2.0, 2.0], [0.5, 0.5])
        self.assertEqual((ratio.value, ratio.low, ratio.high), (4.0, 4.0, 4.0))

    def test_value_is_the_ratio_of_the_medians_and_lies_in_the_interval(self) -> None:
        ratio = intervals.bootstrap_median_ratio([1.0, 2.0, 3.0, 4.0, 100.0], [1.0, 1.0, 2.0])
        self.assertEqual(ratio.value, 3.0)  # median 3 over median 1
        self.assertLessEqual(ratio.low, ratio.value)
        self.assertGreaterEqual(ratio.high, ratio.value)
        self.assertGreaterEqual(ratio.low, 0.5)  # 1 / 2: the smallest median ratio a resample can give
        self.assertLessEqual(ratio.high, 100.0)

    def test_fixed_seed_is_reproducible(self) -> None:
        samples, others = [0.9, 1.0, 1.1, 1.3, 0.8, 1.05], [1.0, 1.2, 0.95, 1.1]
        self.assertEqual(intervals.bootstrap_median_ratio(samples, others, seed=7),
                         intervals.bootstrap_median_ratio(samples, others, seed=7))

    def test_empty_side_gives_nan(self) -> None:
        self.assertTrue(math.isnan(intervals.bootstrap_median_ratio([], [1.0]).value))


class IntervalsTest(unittest.TestCase):
    def test_overlap(self) -> None:
        self.assertTrue(intervals.intervals_overlap(intervals.Interval(1, 0, 2), intervals.Interval(2.5, 2, 3)))  # touching
        self.assertTrue(intervals.intervals_overlap(intervals.Interval(1, 0, 4), intervals.Interval(2, 1, 3)))  # nested
        self.assertFalse(intervals.intervals_overlap(intervals.Interval(1, 0, 2), intervals.Interval(3, 2.1, 4)))

    def test_non_finite_values_are_null_in_json(self) -> None:
        self.assertEqual(intervals.Interval(math.nan, 1.0, math.inf).as_json(),
                         {"value": None, "ci_low": 1.0, "ci_high": None})


class VerdictTest(unittest.TestCase):
    def figures(self, ratio: float, target: float | None) -> sbs.CellFigures:
        return sbs.CellFigures(1.0, 1.0, intervals.Interval(ratio, ratio, ratio), target, intervals.Interval(1, 0.9, 1.1),
                               intervals.Interval(1.3, 1.15, 1.4))

    def test_ratio_target_is_inclusive_and_optional(self) -> None:
        self.assertTrue(self.figures(1.02, 1.02).ratio_pass)
        self.assertFalse(self.figures(1.03, 1.02).ratio_pass)
        self.assertIsNone(self.figures(0.1, None).ratio_pass)
        self.assertFalse(self.figures(1.3, None).speedups_overlap)

    def test_simplenet_target_holds_at_seed_sizes_only(self) -> None:
        self.assertEqual(sbs.RATIO_TARGETS[("simplenet", "seed")], 0.5)
        self.assertNotIn(("simplenet", "default"), sbs.RATIO_TARGETS)
        self.assertEqual(sbs.RATIO_TARGETS[("transformer", "default")], 1.02)


class FlagsTest(unittest.TestCase):
    def test_bad_flags_exit_2_with_one_line_naming_the_flag(self) -> None:
        for argv in (["--rounds", "0"], ["--modes", "fp8"], ["--presets", "simplenet=huge"], ["--steps", "x"]):
            stderr = io.StringIO()
            with self.subTest(argv=argv), self.assertRaises(SystemExit) as caught, contextlib.redirect_stderr(stderr):
                sbs.parse_arguments(argv)
            self.assertEqual(caught.exception.code, 2)
            self.assertEqual(stderr.getvalue().count("\n"), 1)
            self.assertIn(argv[0], stderr.getvalue())


if __name__ == "__main__":
    unittest.main()
