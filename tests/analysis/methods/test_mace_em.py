"""The vectorised MACE steps: the same numbers as the update equations, in or out of log space."""

import math

import numpy as np
import pytest

from analysis.methods import mace_em
from analysis.methods.mace import mace


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


@pytest.mark.parametrize("em", [True, False])
def test_vectorised_steps_equal_the_update_equations_one_annotation_at_a_time(em):
    rng = np.random.default_rng(4)
    items, workers, labels = random_annotations(40, 6, 3, 3, seed=4)
    n_items, n_workers, n_labels = 40, 6, 3
    controls = np.full(n_items, -1)
    controls[[0, 5, 9]] = [2, 0, 1]
    spam = 1 + 0.5 * rng.random((n_workers, 2))
    spam /= spam.sum(axis=1, keepdims=True)
    theta = 1 + 0.5 * rng.random((n_workers, n_labels))
    theta /= theta.sum(axis=1, keepdims=True)

    layout = mace_em.build_layout(items, workers, labels, n_items, n_workers, n_labels, controls)
    block = mace_em._RestartBlock(
        layout, [rng], em=em, alpha=0.5, beta=0.5, smoothing=0.01 / n_labels
    )
    block.initial = (spam[:, :1].copy(), spam[:, 1:].copy(), theta.T[:, :, None].copy())
    block.tables_from_parameters()
    block.e_step(keep_log_z=False)
    for iteration in range(15):
        block.m_step()
        block.e_step(keep_log_z=iteration == 14)

    post, ll, competence = naive_mace(
        items, workers, labels, n_labels, spam[:, 0], spam[:, 1], theta, 15, em, controls
    )
    np.testing.assert_allclose(block.post[:, :, 0].T, post, atol=1e-12)
    np.testing.assert_allclose(block.parameters()[1][:, 0], competence, rtol=1e-12)
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


def test_log_space_steps_match_the_product_steps():
    items, workers, labels = random_annotations(300, 10, 5, 3, seed=7)
    layout = mace_em.build_layout(items, workers, labels, 300, 10, 3, None)
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
        outcomes.append((block.post.copy(), block.log_likelihood()))
    np.testing.assert_allclose(outcomes[0][0], outcomes[1][0], atol=1e-13)
    np.testing.assert_allclose(outcomes[0][1], outcomes[1][1], rtol=1e-13)


def test_digamma_matches_scipy():
    special = pytest.importorskip("scipy.special")
    x = np.concatenate([np.geomspace(1e-4, 1e4, 500), [0.5, 1.0, 2.0, 5.999, 6.0, 10.0, 30.0]])
    np.testing.assert_allclose(mace_em.digamma(x), special.digamma(x), rtol=1e-12, atol=1e-12)
