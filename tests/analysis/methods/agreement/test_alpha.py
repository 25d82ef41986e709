"""Krippendorff's alpha: published examples, the krippendorff package, set-valued answers."""

import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

from analysis.methods.agreement import (
    encode_frame,
    jaccard_distance,
    krippendorff_alpha,
    masi_distance,
    reliability_matrix,
)

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example C: 4 observers,
# 12 units, values 1-5, missing data. Published: nominal .743, ordinal .815, interval .849,
# ratio .797.
EXAMPLE_C = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    "C": [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
}
# Example A: two observers, ten units, binary values; published alpha .095.
EXAMPLE_A = {"A": [0, 1, 0, 0, 0, 0, 0, 0, 1, 0], "B": [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]}


def frame_of(observers: dict) -> pd.DataFrame:
    rows = [
        (unit, observer, value)
        for observer, values in observers.items()
        for unit, value in enumerate(values)
        if value is not None
    ]
    return pd.DataFrame(rows, columns=["item", "worker", "label"])


def random_frame(seed, *, n_items=120, n_workers=9, values=(1, 2, 3, 5, 8)) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(n_items):
        truth = rng.choice(values)
        for worker in rng.choice(n_workers, size=rng.integers(1, 6), replace=False):
            rows.append((item, worker, truth if rng.random() < 0.55 else rng.choice(values)))
    return pd.DataFrame(rows, columns=["item", "worker", "label"])


def set_frame(seed, *, n_items=60, n_workers=6, options="abcd") -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(n_items):
        truth = rng.random(len(options)) < 0.4
        for worker in rng.choice(n_workers, size=rng.integers(1, 5), replace=False):
            chosen = truth ^ (rng.random(len(options)) < 0.2)
            rows.append(
                (
                    item,
                    worker,
                    frozenset(o for o, keep in zip(options, chosen, strict=True) if keep),
                )
            )
    return pd.DataFrame(rows, columns=["item", "worker", "label"])


def reference_masi(a: frozenset, b: frozenset) -> float:
    """Passonneau (2006): 1 - Jaccard × monotonicity (1, 2/3, 1/3, 0)."""
    if a == b:
        return 0.0
    jaccard = len(a & b) / len(a | b)
    monotonicity = 2 / 3 if (a <= b or b <= a) else (1 / 3 if a & b else 0.0)
    return 1 - jaccard * monotonicity


def reference_jaccard(a: frozenset, b: frozenset) -> float:
    return 0.0 if not (a | b) else 1 - len(a & b) / len(a | b)


def alpha_by_definition(frame: pd.DataFrame, distance) -> float:
    """Krippendorff's alpha from its definition over pairable values, with plain loops."""
    units = [list(labels) for _, labels in frame.groupby("item")["label"] if len(labels) >= 2]
    values = [v for unit in units for v in unit]
    n = len(values)
    observed = (
        sum(
            sum(distance(a, b) for i, a in enumerate(unit) for j, b in enumerate(unit) if i != j)
            / (len(unit) - 1)
            for unit in units
        )
        / n
    )
    expected = sum(
        distance(a, b) for i, a in enumerate(values) for j, b in enumerate(values) if i != j
    ) / (n * (n - 1))
    return 1 - observed / expected


@pytest.mark.parametrize("backend", ["krippendorff", "coincidences"])
@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_example_c(level, published, backend):
    result = krippendorff_alpha(frame_of(EXAMPLE_C), level=level, backend=backend)
    assert result.value == pytest.approx(published, abs=5e-4)
    assert result.backend == backend
    assert (result.n_items, result.n_pairable) == (11, 40)


def test_krippendorff_2011_example_a():
    assert krippendorff_alpha(frame_of(EXAMPLE_A)).value == pytest.approx(0.095, abs=5e-4)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_both_backends_match_the_package_on_reliability_data(level, seed):
    frame = random_frame(seed)
    encoded = encode_frame(frame)
    data = reliability_matrix(encoded)
    values = np.array(encoded.categories, dtype=float)
    data = np.where(np.isnan(data), np.nan, values[np.nan_to_num(data).astype(int)])
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    for backend in ("krippendorff", "coincidences"):
        assert krippendorff_alpha(frame, level=level, backend=backend).value == pytest.approx(
            expected, abs=1e-10
        )


def test_ordinal_text_labels_follow_the_given_order():
    frame = random_frame(3, values=(1, 2, 3, 4))
    words = {1: "never", 2: "rarely", 3: "often", 4: "always"}
    text = frame.assign(label=frame["label"].map(words))
    with pytest.raises(ValueError, match="ordered"):
        krippendorff_alpha(text, level="ordinal")
    ordered = krippendorff_alpha(text, level="ordinal", categories=list(words.values()))
    assert ordered.value == pytest.approx(
        krippendorff_alpha(frame, level="ordinal").value, abs=1e-12
    )
    # Alphabetical order would be a different, wrong, ordinal alpha.
    alphabetical = krippendorff_alpha(text, level="ordinal", categories=sorted(words.values()))
    assert abs(alphabetical.value - ordered.value) > 0.01


def test_many_categories_go_through_coincidences_with_the_same_value():
    rng = np.random.default_rng(4)
    values = np.arange(3000)
    frame = random_frame(5, n_items=400, values=values)
    frame["label"] = frame["label"] + rng.integers(0, 2, len(frame))
    result = krippendorff_alpha(frame, level="interval")
    assert result.backend == "coincidences"
    forced = krippendorff_alpha(frame.head(300), level="interval", backend="krippendorff")
    assert forced.value == pytest.approx(
        krippendorff_alpha(frame.head(300), level="interval", backend="coincidences").value,
        abs=1e-10,
    )


def test_set_distances_of_single_answers():
    assert masi_distance({1, 2}, {1, 2, 3, 4}) == pytest.approx(1 - (2 / 4) * (2 / 3))
    assert masi_distance({"a", "b"}, {"b", "c"}) == pytest.approx(1 - (1 / 3) * (1 / 3))
    assert masi_distance({"a"}, {"b"}) == 1.0
    assert masi_distance(set(), set()) == 0.0
    assert jaccard_distance({"a", "b"}, {"b", "c"}) == pytest.approx(2 / 3)
    assert jaccard_distance(set(), {"a"}) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    ("level", "distance"), [("masi", reference_masi), ("jaccard", reference_jaccard)]
)
def test_set_alpha_matches_its_definition(level, distance, seed):
    frame = set_frame(seed)
    expected = alpha_by_definition(frame, distance)
    result = krippendorff_alpha(frame, level=level)
    assert result.value == pytest.approx(expected, abs=1e-10)
    assert result.backend == "coincidences"


def test_set_alpha_matches_the_package_given_the_distance_by_code():
    frame = set_frame(9, n_items=150)
    encoded = encode_frame(frame)
    answers = encoded.categories
    counts = np.zeros((encoded.n_items, encoded.n_categories))
    np.add.at(counts, (encoded.item, encoded.label), 1)

    def masi_by_code(v1, v2, i1, i2, n_v, dtype=np.float64):
        pairs = np.broadcast_arrays(i1, i2)
        return np.vectorize(lambda a, b: reference_masi(answers[a], answers[b]))(*pairs).astype(
            dtype
        )

    expected = krippendorff.alpha(value_counts=counts, level_of_measurement=masi_by_code)
    assert krippendorff_alpha(frame, level="masi").value == pytest.approx(expected, abs=1e-10)


def test_nominal_alpha_on_sets_counts_only_identical_answers():
    frame = set_frame(4)
    encoded = encode_frame(frame)
    identical = alpha_by_definition(frame, lambda a, b: float(a != b))
    assert krippendorff_alpha(frame, level="nominal").value == pytest.approx(identical, abs=1e-10)
    assert (
        krippendorff_alpha(frame, level="masi").value
        > krippendorff_alpha(frame, level="nominal").value
    )
    with pytest.raises(ValueError, match="set-valued"):
        krippendorff_alpha(frame_of(EXAMPLE_C), level="masi")
    assert encoded.kind == "sets"


@pytest.mark.integration
def test_the_runtime_needs_no_krippendorff_package():
    """The package is GPL-3.0: only the tests and benchmarks install it, so the default backend
    must compute every level without it, and asking for it without it says what is missing."""
    code = (
        "import sys; sys.modules['krippendorff'] = None\n"
        "import pandas as pd\n"
        "from analysis.methods.agreement.alpha import krippendorff_alpha\n"
        "frame = pd.DataFrame({'item': [1, 1, 2, 2, 3, 3], 'worker': list('ababab'),"
        " 'label': [1, 1, 2, 3, 3, 3]})\n"
        "for level in ('nominal', 'ordinal', 'interval', 'ratio'):\n"
        "    result = krippendorff_alpha(frame, level=level)\n"
        "    assert result.backend == 'coincidences', result\n"
        "    print(level, round(result.value, 6))\n"
        "try:\n"
        "    krippendorff_alpha(frame, level='nominal', backend='krippendorff')\n"
        "except ValueError as exc:\n"
        "    print('refused:', exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[4])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines[:4]] == ["nominal", "ordinal", "interval", "ratio"]
    frame = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "worker": list("ababab"), "label": [1, 1, 2, 3, 3, 3]})
    assert float(lines[0].split()[1]) == pytest.approx(
        krippendorff_alpha(frame, level="nominal", backend="krippendorff").value, abs=1e-6)
    assert lines[4].startswith("refused:") and "needs the krippendorff package" in lines[4]
