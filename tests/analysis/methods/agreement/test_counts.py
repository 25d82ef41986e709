"""Fleiss' kappa, Gwet's AC1, percent agreement, high-confidence items and positive votes."""

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from analysis.methods.agreement import (
    encode_frame,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    gwet_ac1,
    gwet_ac1_from_counts,
    high_confidence_share,
    item_category_counts,
    percent_agreement,
    positive_votes,
)

# Fleiss (1971), Table 1: 30 patients, 6 psychiatrists each, 5 diagnoses; kappa = .430.
FLEISS_1971 = [
    [4, 4, 4, 4, 4, 4],
    [2, 2, 2, 5, 5, 5],
    [2, 3, 3, 3, 3, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4],
    [1, 1, 3, 3, 3, 3],
    [3, 3, 3, 3, 5, 5],
    [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4],
    [5, 5, 5, 5, 5, 5],
    [1, 4, 4, 4, 4, 4],
    [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3],
    [1, 4, 4, 4, 4, 4],
    [2, 2, 4, 4, 4, 5],
    [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5],
    [1, 1, 1, 1, 1, 2],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 4, 4, 4, 4, 4],
    [2, 2, 4, 5, 5, 5],
    [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5],
    [2, 2, 2, 2, 2, 4],
    [1, 1, 1, 1, 5, 5],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3],
    [5, 5, 5, 5, 5, 5],
]

# Wikipedia's Fleiss' kappa example: 10 items × 5 categories, 14 raters each; kappa = 0.210.
WIKIPEDIA_COUNTS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

# Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.: 4 raters, 12 units, 5 categories,
# missing ratings (irrCAC dataset cac.raw4raters; also Krippendorff 2011's example C).
# Published: percent agreement .81818, AC1 .77544 with chance agreement .19032.
GWET_UNITS = [
    [1, 1, None, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [None, 5, 5, 5],
    [None, None, 1, 1],
    [None, None, 3, None],
]


def long_frame(units, workers=None) -> pd.DataFrame:
    rows = [
        (unit, workers[rater] if workers else f"r{rater}", label)
        for unit, labels in enumerate(units)
        for rater, label in enumerate(labels)
        if label is not None
    ]
    return pd.DataFrame(rows, columns=["item", "worker", "label"])


def random_frame(seed, n_items=200, n_workers=30, n_categories=4, ratings=(2, 7)) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(n_items):
        m = rng.integers(ratings[0], ratings[1] + 1)
        truth = rng.integers(n_categories)
        for worker in rng.choice(n_workers, size=m, replace=False):
            label = truth if rng.random() < 0.6 else rng.integers(n_categories)
            rows.append((f"item{item}", f"w{worker}", f"c{label}"))
    return pd.DataFrame(rows, columns=["item", "worker", "label"])


def gwet_reference(frame: pd.DataFrame, categories) -> tuple[float, float, float]:
    """Gwet (2014) with plain loops: (p_a, Fleiss' kappa, AC1) for variable ratings per item."""
    agreement, paired, shares = 0.0, 0, {c: 0.0 for c in categories}
    groups = list(frame.groupby("item")["label"])
    for _, labels in groups:
        r = len(labels)
        counts = labels.value_counts()
        for category, count in counts.items():
            shares[category] += count / r
        if r >= 2:
            agreement += sum(c * (c - 1) for c in counts) / (r * (r - 1))
            paired += 1
    p_a = agreement / paired
    pi = np.array([shares[c] / len(groups) for c in categories])
    pe_fleiss = (pi**2).sum()
    pe_ac1 = (pi * (1 - pi)).sum() / (len(categories) - 1)
    return p_a, (p_a - pe_fleiss) / (1 - pe_fleiss), (p_a - pe_ac1) / (1 - pe_ac1)


def test_fleiss_reproduces_fleiss_1971_table():
    result = fleiss_kappa(long_frame(FLEISS_1971))
    assert result.value == pytest.approx(0.430, abs=5e-4)  # Fleiss 1971
    assert result.value == pytest.approx(0.4302445, abs=1e-7)  # R irr::kappam.fleiss
    table, _ = aggregate_raters(np.array(FLEISS_1971))
    assert result.value == pytest.approx(sm_fleiss_kappa(table), abs=1e-12)
    assert result.fixed_ratings and result.n_items == 30 and result.n_categories == 5


def test_fleiss_from_published_counts():
    result = fleiss_kappa_from_counts(WIKIPEDIA_COUNTS)
    assert result.value == pytest.approx(0.210, abs=5e-4)
    assert result.value == pytest.approx(sm_fleiss_kappa(np.array(WIKIPEDIA_COUNTS)), abs=1e-12)
    assert result.p_observed == pytest.approx(0.378, abs=5e-4)  # Wikipedia's P-bar
    assert result.p_expected == pytest.approx(0.213, abs=5e-4)  # Wikipedia's P-bar_e


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fleiss_fixed_ratings_matches_statsmodels(seed):
    frame = random_frame(seed, ratings=(3 + seed, 3 + seed), n_categories=3 + seed)
    encoded = encode_frame(frame)
    expected = sm_fleiss_kappa(item_category_counts(encoded))
    assert fleiss_kappa(frame).value == pytest.approx(expected, abs=1e-12)
    assert fleiss_kappa_from_counts(item_category_counts(encoded)).value == pytest.approx(
        expected, abs=1e-12
    )


def test_variable_ratings_follow_gwet_and_reduce_to_fixed_case():
    frame = random_frame(7)
    categories = sorted(frame["label"].unique())
    p_a, kappa, ac1 = gwet_reference(frame, categories)
    result = fleiss_kappa(frame)
    assert not result.fixed_ratings
    assert result.value == pytest.approx(kappa, abs=1e-12)
    assert result.p_observed == pytest.approx(p_a, abs=1e-12)
    assert gwet_ac1(frame).value == pytest.approx(ac1, abs=1e-12)
    # Dropping ratings down to a fixed three per item brings back Fleiss (1971) / statsmodels.
    fixed = frame.groupby("item").head(3)
    fixed = fixed[fixed.groupby("item")["worker"].transform("size") == 3]
    table = item_category_counts(encode_frame(fixed))
    assert fleiss_kappa(fixed).value == pytest.approx(sm_fleiss_kappa(table), abs=1e-12)
    assert gwet_reference(fixed, sorted(fixed["label"].unique()))[1] == pytest.approx(
        sm_fleiss_kappa(table), abs=1e-12
    )


def test_gwet_ac1_reproduces_handbook_example():
    frame = long_frame(GWET_UNITS)
    result = gwet_ac1(frame)
    assert result.value == pytest.approx(0.77544, abs=5e-6)
    assert result.p_observed == pytest.approx(0.81818, abs=5e-6)
    assert result.p_expected == pytest.approx(0.19032, abs=5e-6)
    assert result.n_items == 11  # the last unit has a single rating
    assert percent_agreement(frame).value == pytest.approx(0.81818, abs=5e-6)
    assert fleiss_kappa(frame).value == pytest.approx(
        gwet_reference(frame, [1, 2, 3, 4, 5])[1], abs=1e-12
    )
    table = item_category_counts(encode_frame(frame))
    assert gwet_ac1_from_counts(table).value == pytest.approx(0.77544, abs=5e-6)


def test_ac1_stays_high_when_one_label_dominates():
    # 200 items, 3 raters; "None" almost everywhere, a handful of scattered disagreements.
    units = (
        [["None"] * 3 for _ in range(190)] + [["None", "claim", "None"]] * 6 + [["claim"] * 3] * 4
    )
    frame = long_frame(units)
    kappa, ac1 = fleiss_kappa(frame), gwet_ac1(frame)
    _, kappa_ref, ac1_ref = gwet_reference(frame, ["None", "claim"])
    assert kappa.value == pytest.approx(kappa_ref, abs=1e-12)
    assert ac1.value == pytest.approx(ac1_ref, abs=1e-12)
    assert percent_agreement(frame).value == pytest.approx(1 - 6 * (2 / 3) / 200)
    assert kappa.value < 0.7 and ac1.value > 0.95


def test_percent_agreement_is_pairwise_over_items_with_two_ratings():
    frame = random_frame(3)
    per_item = []
    for _, labels in frame.groupby("item")["label"]:
        pairs = list(combinations(labels, 2))
        if pairs:
            per_item.append(np.mean([a == b for a, b in pairs]))
    single = pd.DataFrame({"item": ["lonely"], "worker": ["w0"], "label": ["c0"]})
    result = percent_agreement(pd.concat([frame, single]))
    assert result.value == pytest.approx(np.mean(per_item), abs=1e-12)
    assert result.n_items == len(per_item)


def test_high_confidence_share_counts_m_minus_slack_agreement():
    units = [
        ["a", "a", "a", "a", "b"],  # 4 of 5: high
        ["a", "a", "a", "b", "b"],  # 3 of 5: not
        ["a", "a", "a", "b", None],  # 3 of 4: high
        ["a", "a", "a", "a", "a"],  # 5 of 5: high, also unanimous
        ["a", "b", None, None, None],  # two ratings: not eligible at min_ratings=3
    ]
    frame = long_frame(units)
    result = high_confidence_share(frame)
    assert (result.n_high, result.n_items, result.share) == (3, 4, 0.75)
    unanimous = high_confidence_share(frame, slack=0)
    assert (unanimous.n_high, unanimous.n_items) == (1, 4)
    with_pairs = high_confidence_share(frame, min_ratings=2)
    assert (with_pairs.n_high, with_pairs.n_items) == (4, 5)


def test_positive_votes_of_binary_questions():
    units = [[1, 1, 1], [1, 0, 0], [0, 0, 0], [0, 0, 0], [1, 1, None], [0, 1, None]]
    result = positive_votes(long_frame(units))
    assert result.counts == {2: (0, 1, 1), 3: (2, 1, 0, 1)}
    assert result.n_questions == 6
    assert result.to_dict() == {"2": [0, 1, 1], "3": [2, 1, 0, 1]}


def test_positive_votes_of_set_answers_count_unchosen_options():
    frame = pd.DataFrame(
        {
            "item": [1, 1, 1, 2, 2, 2],
            "worker": ["a", "b", "c", "a", "b", "c"],
            "label": [
                frozenset({"x", "y"}),
                frozenset({"x"}),
                frozenset(),
                frozenset({"y"}),
                ("y",),
                frozenset({"y", "x"}),
            ],
        }
    )
    # item 1: x 2 votes, y 1, z 0; item 2: x 1, y 3, z 0.
    result = positive_votes(frame, options=["x", "y", "z"])
    assert result.counts == {3: (2, 2, 1, 1)}
    assert positive_votes(frame).counts == {3: (0, 2, 1, 1)}
    with pytest.raises(ValueError, match="binary"):
        positive_votes(long_frame([["a", "b"]]))
