"""The vectorised MACE steps: the same numbers as the update equations, in or out of log space."""

import math

import numpy as np
import pytest

from analysis.methods.mace import em as mace_em
from analysis.methods.mace import layout as mace_layout
from analysis.methods.mace import mace
from analysis.methods.mace.layout import build_layout


def random_annotations(n_items, n_workers, per_item, n_labels, seed):
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_items), per_item)
    workers = np.concatenate(
        [rng.choice(n_workers, per_item, replace=False) for _ in range(n_items)]
    )
    labels = rng.integers(0, n_labels, len(items))
    return items, workers, labels


def naive_mace(
    items,
    workers,
    labels,
    n_labels,
    s0,
    s1,
    theta,
    iterations,
    em,
    controls,
    smoothing=None,
    alpha=0.5,
    beta=0.5,
):
    """The update equations of Hovy et al. (2013), one annotation at a time, in plain floats."""
    n_items, n_workers = int(items.max()) + 1, len(s0)
    smoothing = 0.01 / n_labels if smoothing is None else smoothing
    s0, s1, theta = list(s0), list(s1), [list(row) for row in theta]
    by_item = [
        [(w, k) for i, w, k in zip(items, workers, labels, strict=True) if i == item]
        for item in range(n_items)
    ]

    def e_step():
        post, ll = [], 0.0
        knew, guessed, strategy = (
            [0.0] * n_workers,
            [0.0] * n_workers,
            [[0.0] * n_labels for _ in range(n_workers)],
        )
        for item, annotations in enumerate(by_item):
            joint = []
            for truth in range(n_labels):
                p = 1.0 / n_labels
                for w, k in annotations:
                    p *= s0[w] * theta[w][k] + (s1[w] if k == truth else 0.0)
                joint.append(p if controls[item] in (-1, truth) else 0.0)
            total = sum(joint)
            ll += math.log(total)
            post.append([p / total for p in joint])
            for w, k in annotations:
                known = post[-1][k] * s1[w] / (s0[w] * theta[w][k] + s1[w])
                knew[w] += known
                guessed[w] += 1 - known
                strategy[w][k] += 1 - known
        return post, ll, knew, guessed, strategy

    post, ll, knew, guessed, strategy = e_step()
    for _ in range(iterations):
        for w in range(n_workers):
            if em:
                total = knew[w] + guessed[w] + 2 * smoothing
                s0[w], s1[w] = (guessed[w] + smoothing) / total, (knew[w] + smoothing) / total
                theta[w] = [
                    (c + smoothing) / (guessed[w] + n_labels * smoothing) for c in strategy[w]
                ]
            else:
                digamma = mace_em.digamma
                norm = float(digamma(knew[w] + guessed[w] + alpha + beta))
                s0[w] = math.exp(float(digamma(guessed[w] + alpha)) - norm)
                s1[w] = math.exp(float(digamma(knew[w] + beta)) - norm)
                norm = float(digamma(guessed[w] + 10 * n_labels))
                theta[w] = [math.exp(float(digamma(c + 10)) - norm) for c in strategy[w]]
        post, ll, knew, guessed, strategy = e_step()
    return np.array(post), ll, np.array(s1)


def start_from(block, layout, spam, theta):
    """Set a block's starting parameters from dense (W, 2) and (W, L) ones, in layout order."""
    order = layout.workers.order
    rows = np.zeros((layout.workers.n_rows, 1))
    rows[layout.pair_rows, 0] = theta[layout.pair_worker, layout.pair_label]
    block.initial = (spam[order, :1].copy(), spam[order, 1:].copy(), rows)


def dense_posteriors(block, layout, restart=0):
    """(I, L) posteriors of one restart: the cells, and the shared value everywhere else."""
    other = block.other_posterior()[:, restart][layout.items.position]
    dense = np.repeat(other[:, None], layout.n_labels, axis=1)
    dense[layout.cell_item, layout.cell_label] = block.post[layout.cell_rows, restart]
    return dense


# (items, workers, annotations per item, labels): few labels, every item and worker giving most
# of them; then many labels, so that items and workers have labels nobody gave them and more
# than 8 cells or pairs (padded layouts).
SHAPES = [(40, 6, 3, 3), (60, 12, 10, 14)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("em", [True, False])
def test_vectorised_steps_equal_the_update_equations_one_annotation_at_a_time(em, shape):
    n_items, n_workers, per_item, n_labels = shape
    rng = np.random.default_rng(4)
    items, workers, labels = random_annotations(n_items, n_workers, per_item, n_labels, seed=4)
    controls = np.full(n_items, -1)
    controls[[0, 5, 9]] = [2, 0, 1]
    # And one control is a label none of the item's annotators gave.
    gap = next(i for i in range(10, n_items) if len(set(labels[items == i])) < n_labels)
    controls[gap] = np.setdiff1d(np.arange(n_labels), labels[items == gap])[0]
    spam = 1 + 0.5 * rng.random((n_workers, 2))
    spam /= spam.sum(axis=1, keepdims=True)
    theta = 1 + 0.5 * rng.random((n_workers, n_labels))
    theta /= theta.sum(axis=1, keepdims=True)

    layout = build_layout(items, workers, labels, n_items, n_workers, n_labels, controls)
    if n_labels > 8:
        assert layout.items.phantoms.size and layout.workers.phantoms.size
    block = mace_em._RestartBlock(
        layout, [rng], em=em, alpha=0.5, beta=0.5, smoothing=0.01 / n_labels
    )
    start_from(block, layout, spam, theta)
    block.tables_from_parameters()
    block.e_step(keep_log_z=False)
    for iteration in range(15):
        block.m_step()
        block.e_step(keep_log_z=iteration == 14)

    post, ll, competence = naive_mace(
        items, workers, labels, n_labels, spam[:, 0], spam[:, 1], theta, 15, em, controls
    )
    np.testing.assert_allclose(dense_posteriors(block, layout), post, atol=1e-12)
    s1 = block.parameters()[1][:, 0][layout.workers.position]
    np.testing.assert_allclose(s1, competence, rtol=1e-12)
    assert block.log_likelihood()[0] == pytest.approx(ll, rel=1e-12)


def test_overflowing_products_fall_back_to_log_space():
    # 400 reliable workers agree on every item: a product of 400 ratios overflows a float64.
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 30)
    items = np.repeat(np.arange(30), 400)
    workers = np.tile(np.arange(400), 30)
    labels = truth[items]
    result = mace(items, workers, labels, em=True, iterations=20, restarts=2, seed=6)
    assert np.isfinite(result.log_likelihood)
    assert np.array_equal(result.labels, truth)
    assert np.all(result.competence > 0.99)


@pytest.mark.parametrize("shape", SHAPES)
def test_log_space_steps_match_the_product_steps(shape):
    n_items, n_workers, per_item, n_labels = shape
    items, workers, labels = random_annotations(n_items, n_workers, per_item, n_labels, seed=7)
    controls = np.full(n_items, -1)
    controls[[1, 2]] = [0, n_labels - 1]
    layout = build_layout(items, workers, labels, n_items, n_workers, n_labels, controls)
    outcomes = []
    for log_space in (False, True):
        rngs = [np.random.default_rng(s) for s in (1, 2)]
        block = mace_em._RestartBlock(
            layout, rngs, em=False, alpha=0.5, beta=0.5, smoothing=0.0, log_space=log_space
        )
        block.tables_from_parameters()
        block.e_step(keep_log_z=False)
        for iteration in range(10):
            block.m_step()
            block.e_step(keep_log_z=iteration == 9)
        dense = [dense_posteriors(block, layout, r) for r in (0, 1)]
        outcomes.append((np.stack(dense), block.log_likelihood()))
    np.testing.assert_allclose(outcomes[0][0], outcomes[1][0], atol=1e-13)
    np.testing.assert_allclose(outcomes[0][1], outcomes[1][1], rtol=1e-13)
    np.testing.assert_allclose(outcomes[0][0].sum(axis=2), 1.0)


def test_digamma_matches_scipy():
    special = pytest.importorskip("scipy.special")
    x = np.concatenate([np.geomspace(1e-4, 1e4, 500), [0.5, 1.0, 2.0, 5.999, 6.0, 10.0, 30.0]])
    np.testing.assert_allclose(mace_em.digamma(x), special.digamma(x), rtol=1e-12, atol=1e-12)


def test_starting_points_are_drawn_for_every_label_as_the_original_draws_them(monkeypatch):
    # Per restart: (guess, know) per worker, then one value per worker and label, normalised over
    # all labels -- also over labels the worker never gave -- so runs with few labels start where
    # they always did. The draw comes in chunks of workers, which must not change it.
    items, workers, labels = random_annotations(10, 7, 3, 5, seed=9)
    layout = build_layout(items, workers, labels, 10, 7, 5, None)
    assert len(layout.pair_worker) < 7 * 5  # some workers never gave some labels
    for chunk in (1 << 20, 10):  # one chunk, and two workers per chunk
        monkeypatch.setattr(mace_layout, "INIT_CHUNK", chunk)
        s0, s1, theta = mace_layout.initial_parameters(
            layout, [np.random.default_rng(s) for s in (3, 4)]
        )
        for r, seed in enumerate((3, 4)):
            rng = np.random.default_rng(seed)
            spam = 1 + 0.5 * rng.random((7, 2))
            strategy = 1 + 0.5 * rng.random((7, 5))
            strategy /= strategy.sum(axis=1, keepdims=True)
            order = layout.workers.order
            np.testing.assert_array_equal(s0[:, r], (spam[:, 0] / spam.sum(axis=1))[order])
            np.testing.assert_array_equal(s1[:, r], (spam[:, 1] / spam.sum(axis=1))[order])
            np.testing.assert_allclose(
                theta[layout.pair_rows, r],
                strategy[layout.pair_worker, layout.pair_label],
                rtol=1e-15,
            )
