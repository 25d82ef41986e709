"""Factorizing by identity first gives exactly what pandas gives."""

import numpy as np
import pandas as pd
import pytest

from analysis.methods.codes import factorize, object_ids, stable_argsort, unique_inverse_counts


def shared_strings(n: int, distinct: int, seed: int = 0) -> np.ndarray:
    names = np.array([f"w{i}" for i in range(distinct)], dtype=object)
    return names[np.random.default_rng(seed).integers(0, distinct, n)]


@pytest.mark.parametrize("sort", [False, True])
@pytest.mark.parametrize("as_series", [False, True])
def test_codes_and_uniques_equal_pandas(sort, as_series):
    values = shared_strings(200_000, 3_000)
    values[7] = None
    values[11] = np.nan
    # Equal values in distinct objects, as text read from a file gives.
    values[100:200] = ["".join(["w", "1"]) for _ in range(100)]
    data = pd.Series(values) if as_series else values
    codes, uniques = factorize(data, sort=sort)
    expected_codes, expected_uniques = pd.factorize(data, sort=sort)
    assert np.array_equal(codes, expected_codes)
    assert list(uniques) == list(expected_uniques)
    assert codes[7] == codes[11] == -1


def test_small_mostly_distinct_and_numeric_inputs_go_to_pandas():
    for data in (np.array(["a", "b", "a"], dtype=object), np.arange(300_000) % 7,
                 pd.Series([f"x{i}" for i in range(150_000)])):
        codes, uniques = factorize(data)
        expected_codes, expected_uniques = pd.factorize(data)
        assert np.array_equal(codes, expected_codes) and list(uniques) == list(expected_uniques)


def test_unhashable_values_raise_as_pandas_does():
    values = np.empty(150_000, dtype=object)
    values[:] = [["a", "b"]] * 150_000
    with pytest.raises(TypeError):
        factorize(values)


def test_object_ids_read_exactly_the_ids_of_the_objects():
    # factorize groups values by these numbers: were they ever not the objects' ids (another
    # numpy layout, a copy of the objects), this fails before any code can come out wrong.
    values = shared_strings(1_000, 10)
    values[3], values[5], values[8] = None, 2.5, ("a", "b")
    for array in (values, values[::3], values[::-1]):
        assert object_ids(array).tolist() == [id(value) for value in array]
    with pytest.raises(ValueError, match="1-D object array"):
        object_ids(np.arange(3))


@pytest.mark.parametrize("bound", [None, 50, 10**12])
def test_unique_inverse_counts_equal_numpy(bound):
    keys = np.random.default_rng(1).integers(0, 50, 10_000)
    cells, inverse, counts = unique_inverse_counts(keys, bound=bound)
    expected = np.unique(keys, return_inverse=True, return_counts=True)
    for got, want in zip((cells, inverse, counts), expected, strict=True):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("bound", [None, "given"])
@pytest.mark.parametrize("n,high", [(0, 1), (1, 1), (1000, 3), (300_000, 50_000), (300_000, 1 << 40)])
def test_stable_argsort_equals_numpys(n, high, bound):
    keys = np.random.default_rng(n).integers(0, high, n)
    order = stable_argsort(keys, bound=high if bound else None)
    assert order.dtype == np.intp
    assert np.array_equal(order, np.argsort(keys, kind="stable"))


def test_stable_argsort_falls_back_where_key_and_position_do_not_fit():
    keys = np.array([5, -1, 5, 3, -1])  # negative keys
    assert np.array_equal(stable_argsort(keys), np.argsort(keys, kind="stable"))
    big = np.array([1 << 60, 7, 1 << 60, 0])  # 61 bits of key and 2 of position
    assert np.array_equal(stable_argsort(big), np.argsort(big, kind="stable"))
    floats = np.array([0.5, 0.25, 0.5])
    assert np.array_equal(stable_argsort(floats), np.argsort(floats, kind="stable"))
