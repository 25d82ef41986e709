"""The vectorised EM / variational-Bayes loop behind :func:`analysis.methods.mace.mace`.

MACE (Hovy et al., NAACL 2013) says that worker ``a`` either knows the true label of an item
(probability ``s1[a]``) or guesses a label from its own strategy ``theta[a]`` (probability
``s0[a]``), so P(answer k | true label l) = ``s0[a] * theta[a, k] + s1[a] * [k == l]``.

Dividing an item's likelihood by the label-independent product of ``s0 * theta`` over its
annotations leaves, for true label ``l``, the product of ``ratio = 1 + s1 / (s0 * theta)`` over
the annotations that said ``l``. So the E-step is a segmented *product* over (label, item)
segments and the M-step a segmented *sum* of posteriors over (label, worker) segments: both are
sparse over the N annotations, never items x workers.

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

import numpy as np

from analysis.methods.mace_segments import SegmentPlan, aligned_empty, segment_plan, segment_reduce

# The original tool perturbs uniform parameters by this much at each restart.
INIT_NOISE = 0.5
# The original tool's Dirichlet prior on guessing strategies (not an option there either): it
# pulls every strategy towards uniform as strongly as ten pseudo-answers.
STRATEGY_PRIOR = 10.0
# Restarts per block: rows of 4 float64 are half a cache line; two threads' tables then share the
# L3 cache, and each numpy call still does enough work to pay for itself.
RESTARTS_PER_BLOCK = 4
# Floor for s0 * theta so that ratio stays finite when smoothing is 0.
_TINY = np.finfo(np.float64).tiny


# B_2k / 2k for k = 1..7: psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k) for large x.
_PSI_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) for x > 0, to about 1e-13: recurrence up to x >= 6, then the asymptotic series."""
    x = np.array(x, dtype=np.float64)
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
    result = np.log(x) - 0.5 * inv - series * inv2
    if shift is not None:
        result -= shift
    return result


@dataclass(frozen=True)
class Layout:
    """Everything about the annotations that does not change between restarts."""

    n_items: int
    n_workers: int
    n_labels: int
    item_plan: SegmentPlan  # ratio rows (label * W + worker) -> (label, item) segments
    worker_plan: SegmentPlan  # posterior rows (label * I + item) -> (label, worker) segments
    counts: np.ndarray  # (L, W, 1) annotations per label and worker
    totals: np.ndarray  # (W, 1) annotations per worker
    control_rows: np.ndarray  # posterior rows (label * I + item) forced to 0 by controls


def build_layout(items, workers, labels, n_items, n_workers, n_labels, controls) -> Layout:
    item_plan = segment_plan(
        labels * n_items + items,
        labels * n_workers + workers,
        n_labels * n_items,
        n_labels * n_workers,
    )
    worker_plan = segment_plan(
        labels * n_workers + workers,
        labels * n_items + items,
        n_labels * n_workers,
        n_labels * n_items,
    )
    counts = np.bincount(labels * n_workers + workers, minlength=n_labels * n_workers)
    counts = counts.astype(np.float64).reshape(n_labels, n_workers, 1)
    control_rows = np.empty(0, dtype=np.intp)
    if controls is not None:
        fixed = np.flatnonzero(controls >= 0)
        other = np.arange(n_labels)[None, :] != controls[fixed][:, None]
        control_rows = (np.arange(n_labels)[None, :] * n_items + fixed[:, None])[other].astype(
            np.intp
        )
    return Layout(
        n_items,
        n_workers,
        n_labels,
        item_plan,
        worker_plan,
        counts,
        counts.sum(axis=0),
        control_rows,
    )


@dataclass(frozen=True)
class Restarts:
    """The outcome of a block of restarts: every log-likelihood, and the state of the best."""

    log_likelihoods: np.ndarray  # (R,)
    best: int  # position of the best restart in the block
    guessing: np.ndarray  # (W,) s0
    competence: np.ndarray  # (W,) s1
    strategies: np.ndarray  # (L, W) theta
    posteriors: np.ndarray  # (L, I)


class _RestartBlock:
    """Buffers and steps for R restarts run side by side (restart = last axis)."""

    def __init__(
        self,
        layout: Layout,
        rngs: list[np.random.Generator],
        *,
        em,
        alpha,
        beta,
        smoothing,
        log_space=False,
    ):
        n_labels, n_workers, n_items, width = (
            layout.n_labels,
            layout.n_workers,
            layout.n_items,
            len(rngs),
        )
        self.layout, self.em, self.alpha, self.beta = layout, em, alpha, beta
        self.smoothing, self.log_space = smoothing, log_space
        spam = np.stack([1.0 + INIT_NOISE * rng.random((n_workers, 2)) for rng in rngs], axis=-1)
        theta = np.stack(
            [1.0 + INIT_NOISE * rng.random((n_workers, n_labels)).T for rng in rngs], axis=-1
        )
        spam /= spam.sum(axis=1, keepdims=True)
        self.initial = (spam[:, 0], spam[:, 1], theta / theta.sum(axis=0, keepdims=True))
        # item_table: products of ratios per (label, item), then ratios per (label, worker), then 1.
        self.item_table = aligned_empty((layout.item_plan.n_rows, width))
        self.item_table.fill(1.0)
        self.ratio = self.item_table[layout.item_plan.n_reduced : -1].reshape(
            n_labels, n_workers, width
        )
        self.q = aligned_empty((n_labels, n_workers, width))
        # worker_table: posterior sums per (label, worker), then posteriors per (label, item), then 0.
        self.worker_table = aligned_empty((layout.worker_plan.n_rows, width))
        self.worker_table.fill(0.0)
        self.post_rows = self.worker_table[layout.worker_plan.n_reduced : -1]
        self.post = self.post_rows.reshape(n_labels, n_items, width)
        self.guessed = aligned_empty((n_labels, n_workers, width))
        work_rows = max(layout.item_plan.max_block_rows, layout.worker_plan.max_block_rows)
        self.work = aligned_empty((work_rows, width))
        self.z = np.empty((n_items, width))
        self.knew_total = self.guessed_total = None
        self.log_z = np.zeros(width)
        totals = layout.totals
        # Loop constants spelled out over the restarts: numpy broadcasts along the last axis
        # with a 4-element inner loop, three times slower than a plain elementwise op.
        self.totals = np.repeat(totals, width, axis=1)
        prior = smoothing if em else STRATEGY_PRIOR
        self.guess_counts = np.repeat(layout.counts + prior, width, axis=2)
        if em:
            with np.errstate(divide="ignore"):
                self.inv_totals = np.where(
                    totals + 2 * smoothing > 0, 1.0 / (totals + 2 * smoothing), 0.0
                )
        else:
            self.psi_totals = digamma(totals + alpha + beta)

    def parameters(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(s0, s1, theta) as (W, R), (W, R), (L, W, R); the loop itself only needs ratio and q."""
        if self.knew_total is None:
            return self.initial
        L = self.layout.n_labels
        known, guessed = self.knew_total, self.guessed_total
        if self.em:
            sm = self.smoothing
            norm = (guessed + L * sm)[None]
            theta = np.zeros_like(self.guessed)
            np.divide(self.guessed, norm, out=theta, where=norm > 0)  # the original leaves 0 rows
            return (guessed + sm) * self.inv_totals, (known + sm) * self.inv_totals, theta
        theta = np.exp(self.theta_log - digamma(guessed + L * STRATEGY_PRIOR)[None])
        s1 = np.exp(digamma(known + self.beta) - self.psi_totals)
        return np.exp(digamma(guessed + self.alpha) - self.psi_totals), s1, theta

    def tables_from_parameters(self) -> None:
        """ratio = 1 + s1 / (s0 theta) and q = s1 / (s0 theta + s1) per (label, worker)."""
        s0, s1, theta = self.parameters()
        g = theta * s0[None]
        np.maximum(g, _TINY, out=g)
        np.divide(s1[None], g, out=self.q)
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
            self.item_table.take(
                layout.item_plan.dense_to_row, axis=0, out=self.post_rows, mode="clip"
            )
            if layout.control_rows.size:
                self.post_rows[layout.control_rows] = 0.0
            _sum_rows(post, z)
            if keep_log_z:
                self.log_z = np.log(z).sum(axis=0)
            np.divide(1.0, z, out=z)  # reciprocal() is not vectorised; divide() is
            np.multiply(post, z, out=post)

    def _e_step_in_log_space(self, keep_log_z: bool) -> None:
        # For when a product of ratios overflows (near-deterministic workers on items with many
        # annotations): the same reduction over logs, shifted per item before exp.
        layout, post, z = self.layout, self.post, self.z
        log_table = np.zeros_like(self.item_table)
        np.log(
            self.item_table[layout.item_plan.n_reduced :],
            out=log_table[layout.item_plan.n_reduced :],
        )
        segment_reduce(layout.item_plan, log_table, self.work, np.add)
        log_table.take(layout.item_plan.dense_to_row, axis=0, out=self.post_rows, mode="clip")
        if layout.control_rows.size:
            self.post_rows[layout.control_rows] = -np.inf
        shift = post.max(axis=0)
        np.subtract(post, shift, out=post)
        np.exp(post, out=post)
        _sum_rows(post, z)
        if keep_log_z:
            self.log_z = (np.log(z) + shift).sum(axis=0)
        np.divide(1.0, z, out=z)  # reciprocal() is not vectorised; divide() is
        np.multiply(post, z, out=post)

    def m_step(self) -> None:
        layout, guessed, sm = self.layout, self.guessed, self.smoothing
        L, W, R = guessed.shape
        segment_reduce(layout.worker_plan, self.worker_table, self.work, np.add)
        self.worker_table.take(
            layout.worker_plan.dense_to_row, axis=0, out=guessed.reshape(L * W, R), mode="clip"
        )
        # Expected counts: of worker a's answers l, P(true = l) * q were known, the rest guessed.
        np.multiply(guessed, self.q, out=guessed)
        self.knew_total = known = np.empty((W, R))
        _sum_rows(guessed, known)
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
            scale = (known + sm) * (guesses + L * sm) / (guesses + sm)
            np.divide(scale[None], guessed, out=self.q)
        else:
            self.theta_log = digamma(guessed)
            log_scale = (
                digamma(known + self.beta)
                - digamma(guesses + self.alpha)
                + digamma(guesses + L * STRATEGY_PRIOR)
            )
            np.subtract(log_scale[None], self.theta_log, out=self.q)
            np.exp(self.q, out=self.q)
        self._ratio_and_q()

    def log_likelihood(self) -> np.ndarray:
        """log P(annotations) per restart, as the original sums it, after the last E-step."""
        layout = self.layout
        s0, _, theta = self.parameters()
        g = np.maximum(theta * s0[None], _TINY)
        guess_terms = (layout.counts * np.log(g)).sum(axis=(0, 1))
        return self.log_z + guess_terms - layout.n_items * math.log(layout.n_labels)


def _sum_rows(stack: np.ndarray, out: np.ndarray) -> None:
    """out = stack[0] + stack[1] + ... (faster than sum(axis=0) for a few rows)."""
    if len(stack) == 1:
        np.copyto(out, stack[0])
        return
    np.add(stack[0], stack[1], out=out)
    for row in stack[2:]:
        np.add(out, row, out=out)


def _run_block(
    layout: Layout, seeds: list[np.random.SeedSequence], iterations: int, options: dict
) -> Restarts:
    for log_space in (False, True):
        block = _RestartBlock(
            layout, [np.random.default_rng(s) for s in seeds], log_space=log_space, **options
        )
        block.tables_from_parameters()
        block.e_step(keep_log_z=iterations == 0)
        for iteration in range(iterations):
            block.m_step()
            block.e_step(keep_log_z=iteration == iterations - 1)
        lls = block.log_likelihood()
        if np.isfinite(lls).all():
            break
        # A product of ratios overflowed somewhere: run the block again, in log space.
    best = int(np.argmax(lls))  # the first of equals, as the original keeps only strictly better
    s0, s1, theta = block.parameters()
    return Restarts(
        lls,
        best,
        s0[:, best].copy(),
        s1[:, best].copy(),
        theta[:, :, best].copy(),
        block.post[:, :, best].copy(),
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
    options = {"em": em, "alpha": alpha, "beta": beta, "smoothing": smoothing}
    threads = max(1, min(threads or os.cpu_count() or 1, len(groups)))
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
