"""Confidence intervals of a binomial proportion, shared by the analysis reports and the
quality rules the annotation engine evaluates on each gold answer."""

from __future__ import annotations

import math
from statistics import NormalDist

Z95 = 1.959963984540054


def z_for(level: float) -> float:
    """The two-sided normal quantile of a confidence ``level`` (0.95 → 1.96)."""
    if not 0 < level < 1:
        raise ValueError(f"a confidence level lies between 0 and 1, not {level!r}")
    return NormalDist().inv_cdf(0.5 + level / 2)


def wilson(successes: int, n: int, *, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (0–1 without observations)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
