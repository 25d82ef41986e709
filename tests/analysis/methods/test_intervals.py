"""The Wilson interval shared by the reports and the quality rules."""

import pytest
from statsmodels.stats.proportion import proportion_confint

from analysis.methods.intervals import wilson, z_for


def test_newcombes_worked_examples():
    # Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score).
    assert wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert wilson(15, 148) == pytest.approx((0.0624, 0.1605), abs=1e-4)
    assert wilson(0, 20) == pytest.approx((0.0, 0.1611), abs=1e-4)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
@pytest.mark.parametrize(("k", "n"), [(2, 3), (0, 5), (9, 10)])
def test_every_level_matches_statsmodels(level, k, n):
    low, high = proportion_confint(k, n, alpha=1 - level, method="wilson")
    assert wilson(k, n, z=z_for(level)) == pytest.approx((low, high), abs=1e-9)


def test_a_level_outside_zero_and_one_is_refused():
    with pytest.raises(ValueError, match="between 0 and 1"):
        z_for(1.0)
