"""Ratios of medians with percentile-bootstrap intervals, the statistics the Python benchmarks
print beside ampbench's own (tested by tests/bench/side_by_side_stats_test.py and matched_state_test.py)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    """A point estimate with its 95% confidence interval."""

    value: float
    low: float
    high: float

    def as_json(self) -> dict[str, float | None]:
        return {"value": finite_or_none(self.value), "ci_low": finite_or_none(self.low),
                "ci_high": finite_or_none(self.high)}


def finite_or_none(value: float) -> float | None:
    """Strict JSON has no NaN or Infinity: such a value is written as null."""
    return value if math.isfinite(value) else None


def bootstrap_median_ratio(numerator: Sequence[float], denominator: Sequence[float], *,
                           resamples: int = 2000, seed: int = 0, confidence: float = 0.95) -> Interval:
    """median(numerator) / median(denominator) with a percentile-bootstrap CI."""
    return bootstrap_ratio_of_medians([numerator], [denominator], resamples=resamples, seed=seed,
                                      confidence=confidence)


def bootstrap_ratio_of_medians(numerators: Sequence[Sequence[float]], denominators: Sequence[Sequence[float]], *,
                               resamples: int = 2000, seed: int = 0, confidence: float = 0.95) -> Interval:
    """The product of the numerators' medians over the product of the denominators', with a
    percentile-bootstrap CI (a ratio of two speedups is four medians).

    Each sample is resampled with replacement within itself (the samples are independent),
    `resamples` times, from a generator with a fixed seed so the CI is reproducible.
    """
    if any(len(sample) == 0 for sample in (*numerators, *denominators)):
        return Interval(math.nan, math.nan, math.nan)
    rng = np.random.default_rng(seed)

    def medians(sample: Sequence[float]) -> tuple[float, np.ndarray]:
        values = np.asarray(sample, dtype=float)
        return float(np.median(values)), np.median(values[rng.integers(0, values.size, size=(resamples, values.size))],
                                                   axis=1)

    return ratio_with_interval([medians(s) for s in numerators], [medians(s) for s in denominators], confidence)


def ratio_with_interval(numerators: Sequence[tuple[float, np.ndarray]], denominators: Sequence[tuple[float, np.ndarray]],
                        confidence: float = 0.95) -> Interval:
    """The product of the numerators' medians over the denominators', each given as (median, its
    bootstrap resamples, all of one length), with the percentile interval of the resampled ratios."""
    value, ratios = 1.0, 1.0
    for median, resampled in numerators:
        value, ratios = value * median, ratios * resampled
    for median, resampled in denominators:
        value, ratios = value / median, ratios / resampled
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(ratios, [tail, 100.0 - tail])
    return Interval(value, float(low), float(high))


def intervals_overlap(first: Interval, second: Interval) -> bool:
    """True when the two confidence intervals share at least one point."""
    return first.low <= second.high and second.low <= first.high
