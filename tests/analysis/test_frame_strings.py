"""The bulk reading of the long frame's text columns."""

import numpy as np
import pytest

from analysis.frame_strings import NULL, SEP, shared_strings, short_strings


@pytest.mark.parametrize("n", [1, 2, 1000])
def testshort_strings_are_the_split_strings_shared(n):
    pool = ["a1", "a2", "equal", "", "ü✓", "12345678", NULL]  # "ü✓": 5 bytes of UTF-8
    values = [pool[i] for i in np.random.default_rng(n).integers(0, len(pool), n)]
    joined = SEP.join(values)
    short = short_strings(joined, n)
    expected = shared_strings(joined.split(SEP))
    assert list(short) == list(expected)
    # Equal values are one object, as in the split path.
    assert len({id(v) for v in short if v is not None}) == len({v for v in short if v is not None})


def testshort_strings_leave_long_values_and_stray_separators_to_the_split_path():
    assert short_strings(SEP.join(["a1", "123456789"]), 2) is None  # 9 bytes
    assert short_strings(SEP.join(["a1", "✓✓✓"]), 2) is None  # 3 characters, 9 bytes
    assert short_strings(SEP.join(["a1", "a" + SEP + "b"]), 2) is None  # a value holds the separator
    assert short_strings("", 0) is None
