"""Competence intervals by a bootstrap over items: they cover the point estimate, separate a
spammer from careful workers, narrow with more items, and repeat with the seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.methods.mace import competence_intervals, competence_intervals_frame, mace


def crowd(n_items: int = 80, *, seed: int = 1, few_items: int = 0) -> tuple[np.ndarray, ...]:
    """Workers 0-3 answer the truth 90% of the time, worker 4 at random; worker 5 (if
    ``few_items``) is careful but answers only the first ``few_items`` items."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    items, workers, labels = [], [], []
    for w in range(5):
        for i in range(n_items):
            good = w < 4 and rng.random() < 0.9
            items.append(i), workers.append(w), labels.append(truth[i] if good else rng.integers(0, 3))
    for i in range(few_items):
        items.append(i), workers.append(5), labels.append(truth[i])
    return np.array(items), np.array(workers), np.array(labels)


def test_a_spammer_interval_lies_below_every_careful_workers_interval():
    items, workers, labels = crowd()
    found = competence_intervals(items, workers, labels, replicates=40, seed=3)
    point = mace(items, workers, labels, seed=3).competence
    assert found.replicates == 40 and found.low.shape == (5,)
    assert np.all(found.low <= found.high)
    # The point estimate lies within (or at the edge of) each worker's interval.
    assert np.all((found.low - 0.05 <= point) & (point <= found.high + 0.05))
    assert found.high[4] < found.low[:4].min()


def test_fewer_items_give_a_wider_interval():
    items, workers, labels = crowd(few_items=8)
    full = competence_intervals(items, workers, labels, replicates=40, seed=0)
    # The same crowd, but the spammer (worker 4) answered only the first 10 of the 80 items.
    keep = (workers != 4) | (items < 10)
    fewer = competence_intervals(items[keep], workers[keep], labels[keep], replicates=40, seed=0)
    assert fewer.high[4] - fewer.low[4] > 1.5 * (full.high[4] - full.low[4])
    # A worker of one of 80 items is absent from some replicates (about a third); the others from none.
    items, workers, labels = crowd(few_items=1)
    once = competence_intervals(items, workers, labels, replicates=40, seed=0)
    assert 0 < once.present[5] < 40 and np.all(once.present[:5] == 40)


def test_the_seed_repeats_the_intervals_and_another_seed_changes_them():
    items, workers, labels = crowd(40)
    a = competence_intervals(items, workers, labels, replicates=10, seed=7)
    b = competence_intervals(items, workers, labels, replicates=10, seed=7)
    c = competence_intervals(items, workers, labels, replicates=10, seed=8)
    assert np.array_equal(a.low, b.low) and np.array_equal(a.high, b.high)
    assert not np.array_equal(a.low, c.low)


def test_a_worker_without_answers_has_no_interval():
    items, workers, labels = crowd(20)
    found = competence_intervals(items, workers, labels, n_workers=7, replicates=5)
    assert np.isnan(found.low[6]) and np.isnan(found.high[6]) and found.present[6] == 0


def test_the_frame_form_is_keyed_by_worker_ids():
    items, workers, labels = crowd(30)
    frame = pd.DataFrame({"item": [f"i{i}" for i in items], "worker": [f"w{w}" for w in workers],
                          "label": [f"l{x}" for x in labels]})
    found = competence_intervals_frame(frame, replicates=8, seed=1)
    assert list(found.index) == [f"w{w}" for w in range(5)]
    assert set(found.columns) == {"low", "high", "present"}
    assert (found["low"] <= found["high"]).all()


@pytest.mark.parametrize(("change", "message"), [
    ({"replicates": 0}, "replicates must be at least 1"),
    ({"level": 1.0}, "level must be between 0 and 1"),
])
def test_bad_options_are_refused_by_name(change, message):
    items, workers, labels = crowd(10)
    with pytest.raises(ValueError, match=message):
        competence_intervals(items, workers, labels, **change)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="no annotations"):
        competence_intervals(np.array([], dtype=int), np.array([], dtype=int), np.array([], dtype=int))
    with pytest.raises(ValueError, match="differ in length"):
        competence_intervals(np.array([0, 1]), np.array([0]), np.array([0, 1]))
    with pytest.raises(ValueError, match="lacks column"):
        competence_intervals_frame(pd.DataFrame({"item": [1], "worker": [1]}))


def test_a_nominal_95_percent_interval_reads_the_calibrated_1st_to_99th_percentiles():
    from analysis.methods.mace.bootstrap import percentile_level

    assert percentile_level(0.95) == pytest.approx(0.98) and percentile_level(0.9) == pytest.approx(0.96)
    items, workers, labels = crowd()
    nominal = competence_intervals(items, workers, labels, replicates=40, seed=3)
    plain = competence_intervals(items, workers, labels, replicates=40, seed=3, level=0.875)  # reads 0.95
    assert (nominal.level, nominal.percentile_level) == (0.95, pytest.approx(0.98))
    # The same replicates (same seed): the calibrated interval holds the plain 95% one.
    assert np.all(nominal.low <= plain.low + 1e-12) and np.all(nominal.high >= plain.high - 1e-12)


def test_the_rules_early_stopping_decision_is_the_full_intervals_and_stops_once_it_is_known(monkeypatch):
    from analysis.methods.mace import bootstrap
    from analysis.methods.mace.bootstrap import competence_high_below

    items, workers, labels = crowd(n_items=40, few_items=8)
    found = competence_intervals(items, workers, labels, replicates=30, seed=5)
    for worker in range(6):
        high = float(found.high[worker])
        for threshold in (0.2, 0.5, 0.8, high, high + 1e-9, high - 1e-9):
            assert competence_high_below(items, workers, labels, worker=worker, threshold=threshold,
                                         replicates=30, seed=5) == (high < threshold), (worker, threshold)
    assert found.high[4] < 0.5 < found.low[0]
    runs = []
    real_mace = bootstrap.mace
    monkeypatch.setattr(bootstrap, "mace", lambda *a, **k: runs.append(1) or real_mace(*a, **k))
    # A careful worker's interval cannot end below 0.5 once 2 of 30 replicates reach it (the 99th
    # percentile of 30 sits at sorted position 28): two runs answer.
    assert not competence_high_below(items, workers, labels, worker=0, threshold=0.5, replicates=30, seed=5)
    assert len(runs) == 2
    # The spammer's interval ends below 0.5: that takes every replicate.
    runs.clear()
    assert competence_high_below(items, workers, labels, worker=4, threshold=0.5, replicates=30, seed=5)
    assert len(runs) == 30
    with pytest.raises(ValueError, match="worker must be a code"):
        competence_high_below(items, workers, labels, worker=9, threshold=0.5, replicates=30)
