"""The vectorised EM / variational-Bayes loop behind :func:`analysis.methods.mace.mace`.

MACE (Hovy et al., NAACL 2013) says that worker ``a`` either knows the true label of an item
(probability ``s1[a]``) or guesses a label from its own strategy ``theta[a]`` (probability
``s0[a]``), so P(answer k | true label l) = ``s0[a] * theta[a, k] + s1[a] * [k == l]``.

Dividing an item's likelihood by the label-independent product of ``s0 * theta`` over its
annotations leaves, for true label ``l``, the product of ``ratio = 1 + s1 / (s0 * theta)`` over
the annotations that said ``l`` -- and 1 for every label nobody gave the item. So the E-step is
a segmented *product* over the item's cells (see ``layout``) and the M-step a segmented *sum*
of posteriors over the worker's pairs: both are sparse over the N annotations, never items x
workers or items x labels.

Per numpy call, one restart of the UKPConvArg1 configuration is too little work to pay for the
call, so restarts run in blocks, with the restart as the last (contiguous) axis of every array,
and the blocks run on a thread pool (numpy releases the GIL inside these kernels). Each restart
only ever reads its own column; blocks are cut by restart number, not by thread count, so a
seed gives the same result whatever the threads.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
from numpy.typing import ArrayLike

from analysis.methods.mace.layout import RESTARTS_PER_BLOCK, Layout, initial_parameters
from analysis.methods.mace.segments import aligned_empty, segment_reduce

# The original tool's Dirichlet prior on guessing strategies (not an option there either): it
# pulls every strategy towards uniform as strongly as ten pseudo-answers.
STRATEGY_PRIOR = 10.0
# Floor for s0 * theta so that ratio stays finite when smoothing is 0.
_TINY = np.finfo(np.float64).tiny


# B_2k / 2k for k = 1..7: psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k) for large x.
_PSI_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def digamma(values: ArrayLike) -> np.ndarray:
    """psi(x) for x > 0, to about 1e-13: recurrence up to x >= 6, then the asymptotic series."""
    x = np.array(values, dtype=np.float64)
    shift = None
    if x.size and x.min() < 6.0:
        # psi(x) = psi(x + 6) - sum_{m<6} 1 / (x + m); cheaper than masking the small ones.
        shift = 1.0 / x
        for _ in range(5):
            x += 1.0
            shift += 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = np.full_like(x, _PSI_SERIES[-1])
    for coefficient in reversed(_PSI_SERIES[:-1]):
        series = series * inv2 + coefficient
    result: np.ndarray = np.log(x) - 0.5 * inv - series * inv2
    if shift is not None:
        result -= shift
    return result


@dataclass(frozen=True)
class Restarts:
    """The outcome of a block of restarts: every log-likelihood, and the state of the best.

    Workers and items are in layout order; cells and pairs in the order of the layout's
    cell_item and pair_worker (sorted by item or worker, then label).
    """

    log_likelihoods: np.ndarray  # (R,)
    best: int  # position of the best restart in the block
    guessing: np.ndarray  # (W,) s0
    competence: np.ndarray  # (W,) s1
    strategies: np.ndarray  # (P,) theta of each pair
    other_strategy: np.ndarray  # (W,) theta of every label the worker never gave
    posteriors: np.ndarray  # (C,) posterior of each cell
    other_posterior: np.ndarray  # (I,) posterior of every label no annotation gave the item


class _RestartBlock:
    """Buffers and steps for R restarts run side by side (restart = last axis)."""

    def __init__(
        self,
        layout: Layout,
        rngs: list[np.random.Generator],
        *,
        em: bool,
        alpha: float,
        beta: float,
        smoothing: float,
        log_space: bool = False,
    ) -> None:
        n_items, width = layout.n_items, len(rngs)
        pair_rows, cell_rows = layout.workers.n_rows, layout.items.n_rows
        self.layout, self.em, self.alpha, self.beta = layout, em, alpha, beta
        self.smoothing, self.log_space = smoothing, log_space
        self.initial = initial_parameters(layout, rngs)
        # item_table: products per cell, then ratios per pair, then 1 (neutral), then 0 (padding).
        plan = layout.item_plan
        self.item_table = aligned_empty((plan.n_rows + 1, width))
        self.item_table[:-1].fill(1.0)
        self.item_table[-1].fill(0.0)
        self.ratio = self.item_table[plan.n_reduced : plan.n_reduced + pair_rows]
        self.log_table: np.ndarray | None = None
        if log_space:
            self.log_table = aligned_empty(self.item_table.shape)
            self.log_table[: plan.n_reduced].fill(0.0)
        self.q = aligned_empty((pair_rows, width))
        # worker_table: posterior sums per pair, then posteriors per cell, then 0.
        self.worker_table = aligned_empty((layout.worker_plan.n_rows, width))
        self.worker_table.fill(0.0)
        n_reduced = layout.worker_plan.n_reduced
        self.post = self.worker_table[n_reduced : n_reduced + cell_rows]
        self.guessed = aligned_empty((pair_rows, width))
        work_rows = max(plan.max_block_rows, layout.worker_plan.max_block_rows)
        self.work = aligned_empty((work_rows, width))
        self.z = np.empty((n_items, width))
        self.shift: np.ndarray | None = np.zeros((n_items, width)) if log_space else None
        self.scale = np.empty((layout.n_workers, width))
        # The loop's per-bucket views, made once: slicing them anew costs as much as the ops.
        self._normalise = list(layout.items.blocks(self.z, self.post))
        self._scale_q = list(layout.workers.blocks(self.scale, self.guessed, self.q))
        # Set by every M-step; None before the first.
        self.knew_total: np.ndarray | None = None
        self.guessed_total: np.ndarray | None = None
        self.log_z = np.zeros(width)
        totals = layout.totals
        # Loop constants spelled out over the restarts: numpy broadcasts along the last axis
        # with a 4-element inner loop, three times slower than a plain elementwise op.
        self.totals = np.repeat(totals, width, axis=1)
        self.rest_weight = np.repeat(layout.rest_weight, width, axis=1)
        prior = smoothing if em else STRATEGY_PRIOR
        self.guess_counts = np.repeat(layout.counts + prior, width, axis=1)
        if em:
            with np.errstate(divide="ignore"):
                self.inv_totals = np.where(
                    totals + 2 * smoothing > 0, 1.0 / (totals + 2 * smoothing), 0.0
                )
        else:
            self.psi_totals = digamma(totals + alpha + beta)

    def parameters(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(s0, s1, theta) as (W, R), (W, R), (pair rows, R); the loop only needs ratio and q."""
        known, guessed = self.knew_total, self.guessed_total
        if known is None or guessed is None:
            return self.initial
        L, workers = self.layout.n_labels, self.layout.workers
        theta = np.zeros_like(self.guessed)
        if self.em:
            sm = self.smoothing
            norm = guessed + L * sm
            for n, g, t in workers.blocks(norm, self.guessed, theta):
                np.divide(g, n, out=t, where=n > 0)  # the original leaves 0 rows
            return (guessed + sm) * self.inv_totals, (known + sm) * self.inv_totals, theta
        log_norm = digamma(guessed + L * STRATEGY_PRIOR)
        for n, g, t in workers.blocks(log_norm, self.theta_log, theta):
            np.subtract(g, n, out=t)
        np.exp(theta, out=theta)
        s1 = np.exp(digamma(known + self.beta) - self.psi_totals)
        return np.exp(digamma(guessed + self.alpha) - self.psi_totals), s1, theta

    def other_strategy(self) -> np.ndarray:
        """(W, R): theta of each label a worker never gave (the same for all of them)."""
        L, guesses = self.layout.n_labels, self.guessed_total
        if guesses is None:
            raise ValueError("the strategies of labels nobody gave are set by the first M-step")
        if self.em:
            sm = self.smoothing
            norm = guesses + L * sm
            smoothed: np.ndarray = np.divide(sm, norm, out=np.zeros_like(norm), where=norm > 0)
            return smoothed
        prior: np.ndarray = np.exp(digamma(STRATEGY_PRIOR) - digamma(guesses + L * STRATEGY_PRIOR))
        return prior

    def _guess_weights(self, s0: np.ndarray, theta: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out = max(s0 * theta, tiny) per pair row."""
        for s, t, o in self.layout.workers.blocks(s0, theta, out):
            np.multiply(s, t, out=o)
        np.maximum(out, _TINY, out=out)
        return out

    def tables_from_parameters(self) -> None:
        """ratio = 1 + s1 / (s0 theta) and q = s1 / (s0 theta + s1) per pair."""
        s0, s1, theta = self.parameters()
        g = self._guess_weights(s0, theta, np.empty_like(self.q))
        for s, gb, q in self.layout.workers.blocks(s1, g, self.q):
            np.divide(s, gb, out=q)
        self._ratio_and_q()

    def _ratio_and_q(self) -> None:
        # On entry q holds s1 / (s0 theta).
        np.add(self.q, 1.0, out=self.ratio)
        np.divide(self.q, self.ratio, out=self.q)

    def e_step(self, keep_log_z: bool) -> None:
        if self.log_space:
            self._e_step_in_log_space(keep_log_z)
            return
        layout, z, post = self.layout, self.z, self.post
        # An overflow shows up as a non-finite log-likelihood; the block then reruns in log space.
        with np.errstate(over="ignore", invalid="ignore"):
            segment_reduce(layout.item_plan, self.item_table, self.work, np.multiply)
            self.item_table.take(layout.item_plan.dense_to_row, axis=0, out=post, mode="clip")
            if layout.control_rows.size:
                post[layout.control_rows] = 0.0
            layout.items.sum(post, z)
            # Every label nobody gave the item: a product of no ratios, 1.
            np.add(z, self.rest_weight, out=z)
            if keep_log_z:
                self.log_z = np.log(z).sum(axis=0)
            np.divide(1.0, z, out=z)  # reciprocal() is not vectorised; divide() is
            for zb, p in self._normalise:
                np.multiply(p, zb, out=p)

    def _e_step_in_log_space(self, keep_log_z: bool) -> None:
        # For when a product of ratios overflows (near-deterministic workers on items with many
        # annotations): the same reduction over logs, shifted per item before exp.
        layout, post, z, shift = self.layout, self.post, self.z, self.shift
        plan, log_table = layout.item_plan, self.log_table
        # Both are made in __init__ when the block runs in log space, the only caller.
        assert log_table is not None and shift is not None
        with np.errstate(divide="ignore"):  # the padding row: log 0 = -inf, exp(-inf) = 0
            np.log(self.item_table[plan.n_reduced :], out=log_table[plan.n_reduced :])
        segment_reduce(plan, log_table, self.work, np.add)
        log_table.take(plan.dense_to_row, axis=0, out=post, mode="clip")
        if layout.control_rows.size:
            post[layout.control_rows] = -np.inf
        layout.items.max(post, shift, empty=0.0)
        # Labels nobody gave the item have log 1 = 0 and count in the maximum.
        np.maximum(shift, 0.0, out=shift, where=self.rest_weight > 0)
        for s, p in layout.items.blocks(shift, post):
            np.subtract(p, s, out=p)
        np.exp(post, out=post)
        layout.items.sum(post, z)
        z += self.rest_weight * np.exp(-shift)
        if keep_log_z:
            self.log_z = (np.log(z) + shift).sum(axis=0)
        np.divide(1.0, z, out=z)  # reciprocal() is not vectorised; divide() is
        for zb, p in self._normalise:
            np.multiply(p, zb, out=p)

    def other_posterior(self) -> np.ndarray:
        """(I, R): the posterior of each label nobody gave an item, after the last E-step."""
        value = self.z if self.shift is None else self.z * np.exp(-self.shift)
        return np.where(self.rest_weight > 0, value, 0.0)

    def m_step(self) -> None:
        layout, guessed, sm, L = self.layout, self.guessed, self.smoothing, self.layout.n_labels
        workers = layout.workers
        segment_reduce(layout.worker_plan, self.worker_table, self.work, np.add)
        self.worker_table.take(layout.worker_plan.dense_to_row, axis=0, out=guessed, mode="clip")
        # Expected counts: of worker a's answers l, P(true = l) * q were known, the rest guessed.
        np.multiply(guessed, self.q, out=guessed)
        self.knew_total = known = workers.sum(guessed, np.empty(self.totals.shape))
        self.guessed_total = guesses = self.totals - known
        # guessed becomes the guess counts plus smoothing (EM) or plus the prior (VB).
        np.subtract(self.guess_counts, guessed, out=guessed)
        if self.em:
            if sm == 0.0:
                # Zero counts are possible: go through theta, whose zeros tables_from_parameters floors.
                self.tables_from_parameters()
                return
            # s1 / (s0 theta) = (known + sm) (guesses + L sm) / ((guesses + sm) guessed): the
            # normalisers of s and theta cancel, so neither is materialised inside the loop.
            scale = self.scale
            np.add(known, sm, out=scale)
            np.multiply(scale, guesses + L * sm, out=scale)
            np.divide(scale, guesses + sm, out=scale)
            for s, g, q in self._scale_q:
                np.divide(s, g, out=q)
        else:
            self.theta_log = digamma(guessed)
            log_scale = (
                digamma(known + self.beta)
                - digamma(guesses + self.alpha)
                + digamma(guesses + L * STRATEGY_PRIOR)
            )
            for s, t, q in workers.blocks(log_scale, self.theta_log, self.q):
                np.subtract(s, t, out=q)
            np.exp(self.q, out=self.q)
        self._ratio_and_q()

    def log_likelihood(self) -> np.ndarray:
        """log P(annotations) per restart, as the original sums it, after the last E-step."""
        layout = self.layout
        s0, _, theta = self.parameters()
        g = self._guess_weights(s0, theta, np.empty_like(self.q))
        guess_terms = (layout.counts * np.log(g)).sum(axis=0)
        lls: np.ndarray = self.log_z + guess_terms - layout.n_items * math.log(layout.n_labels)
        return lls


class _Options(TypedDict):
    em: bool
    alpha: float
    beta: float
    smoothing: float


def _iterate(
    layout: Layout,
    seeds: list[np.random.SeedSequence],
    iterations: int,
    options: _Options,
    *,
    log_space: bool,
) -> _RestartBlock:
    block = _RestartBlock(
        layout, [np.random.default_rng(s) for s in seeds], log_space=log_space, **options
    )
    block.tables_from_parameters()
    block.e_step(keep_log_z=iterations == 0)
    for iteration in range(iterations):
        block.m_step()
        block.e_step(keep_log_z=iteration == iterations - 1)
    return block


def _run_block(
    layout: Layout, seeds: list[np.random.SeedSequence], iterations: int, options: _Options
) -> Restarts:
    block = _iterate(layout, seeds, iterations, options, log_space=False)
    lls = block.log_likelihood()
    if not np.isfinite(lls).all():
        # A product of ratios overflowed somewhere: run the block again, in log space.
        del block  # free the product-space buffers before the log-space ones are made
        block = _iterate(layout, seeds, iterations, options, log_space=True)
        lls = block.log_likelihood()
    best = int(np.argmax(lls))  # the first of equals, as the original keeps only strictly better
    s0, s1, theta = block.parameters()
    if iterations:
        other_theta = block.other_strategy()[:, best]
    else:
        # The initial strategies were drawn for every label: the labels a worker never gave
        # share what the others leave, as their mean.
        given = np.bincount(layout.pair_worker, minlength=layout.n_workers)[layout.workers.order]
        total = layout.workers.sum(theta[:, best : best + 1], np.empty((layout.n_workers, 1)))
        others = (layout.n_labels - given).astype(np.float64)
        other_theta = np.divide(1.0 - total[:, 0], others, out=np.zeros_like(others), where=others > 0)
    return Restarts(
        lls,
        best,
        s0[:, best].copy(),
        s1[:, best].copy(),
        theta[layout.pair_rows, best],
        other_theta,
        block.post[layout.cell_rows, best],
        block.other_posterior()[:, best],
    )


def run_restarts(
    layout: Layout,
    seeds: list[np.random.SeedSequence],
    *,
    iterations: int,
    threads: int | None,
    em: bool,
    alpha: float,
    beta: float,
    smoothing: float,
) -> tuple[np.ndarray, int, Restarts]:
    """Run every restart; return all log-likelihoods, the index of the best and its state."""
    n = len(seeds)
    bounds = list(range(0, n, RESTARTS_PER_BLOCK)) + [n]
    groups = [seeds[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    options: _Options = {"em": em, "alpha": alpha, "beta": beta, "smoothing": smoothing}
    threads = block_threads(threads, n)
    if threads == 1:
        outcomes = [_run_block(layout, group, iterations, options) for group in groups]
    else:
        with ThreadPoolExecutor(threads) as pool:
            outcomes = list(
                pool.map(lambda group: _run_block(layout, group, iterations, options), groups)
            )
    lls = np.concatenate([o.log_likelihoods for o in outcomes])
    best = int(np.argmax(lls))
    return lls, best, outcomes[best // RESTARTS_PER_BLOCK]


def block_threads(threads: int | None, restarts: int) -> int:
    """Blocks of restarts that run at the same time (one per thread, at most one per block)."""
    blocks = math.ceil(restarts / RESTARTS_PER_BLOCK)
    return max(1, min(threads or os.cpu_count() or 1, blocks))
