"""What MACE's restarts share: the annotations laid out sparsely, the random starting points,
and how much memory a run needs.

Most of items x labels and workers x labels repeats one value. An item's posterior is the same
for every label nobody gave it (the product of its annotations' guessing terms, with no knowing
term), and a worker's strategy enters the likelihood only for the labels it gave (the others
share what is left). So the state is kept per *cell* (an item and a label some worker gave it)
and per *pair* (a worker and a label it gave), at most one of each per annotation, plus one value
per item and per worker for all the other labels: memory follows the number of annotations,
whatever the number of labels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analysis.methods.codes import unique_inverse_counts
from analysis.methods.mace.segments import (
    BLOCK_ROWS,
    EXACT_SEGMENT_SIZES,
    GroupPlan,
    SegmentPlan,
    group_plan,
    segment_plan,
)

# The original tool perturbs uniform parameters by this much at each restart.
INIT_NOISE = 0.5
# Restarts per block: rows of 4 float64 are half a cache line; two threads' tables then share the
# L3 cache, and each numpy call still does enough work to pay for itself.
RESTARTS_PER_BLOCK = 4
# Up to this many draws per restart (workers x labels), a worker's initial strategy is drawn for
# every label and normalised over all of them, as the original tool does. Beyond it (thousands of
# labels), drawing them all would take longer than the run: only the labels a worker gave are
# drawn and the others count with their expected weight.
FULL_INIT_DRAWS = 1 << 24
# Draws generated at once when drawing for every label: bounds the memory of the draw.
INIT_CHUNK = 1 << 20
GIB = 1 << 30
# Refuse runs that would need more than this (bytes); ``max_memory`` changes it.
DEFAULT_MAX_MEMORY = 4 * GIB


class MaceTooLarge(ValueError):
    """A run that would need more memory than allowed; raised before anything large is allocated.

    ``problem`` says what would not fit, ``advice`` what to do about it from Python or the command
    line; callers with other means (a report's parameters) can compose their own message. Not a
    MemoryError on purpose: job runners such as Celery treat that as fatal to the worker process.
    """

    def __init__(self, problem: str, advice: str, *, needed: int, limit: int, blocks: int = 1):
        super().__init__(f"{problem}; {advice}")
        self.problem, self.advice = problem, advice
        self.needed, self.limit, self.blocks = needed, limit, blocks

    def __str__(self) -> str:
        return str(self.args[0])


def memory_estimate(
    *,
    n_annotations: int,
    n_items: int,
    n_workers: int,
    n_labels: int,
    restarts: int,
    threads: int,
    n_controls: int = 0,
) -> int:
    """Bytes a run needs at its peak, from the sizes alone: an upper estimate.

    Cells and pairs are bounded by the annotations (one each at most) and by items (workers)
    times labels; groups of more than EXACT_SEGMENT_SIZES are padded by up to half. The layout
    and the result hold a few integers per annotation, cell and pair; every block of restarts
    running at the same time holds, per restart, a few floats per cell and a dozen per pair
    (the strategies and their temporaries), plus the random draws of its starting points.
    """
    n, items, workers, labels = n_annotations, n_items, n_workers, n_labels
    width = RESTARTS_PER_BLOCK
    blocks = max(1, min(threads, math.ceil(restarts / width)))
    padding = 1.0 if labels <= EXACT_SEGMENT_SIZES else 1.5
    cells = min(n + n_controls, items * labels) * padding
    pairs = min(n, workers * labels) * padding
    # The longest segment: a cell's annotations (one per worker) or a pair's (one per item).
    work = max(BLOCK_ROWS, 1.5 * min(n, max(items, workers)))
    layout = 8 * (10 * n + 8 * (cells + pairs) + 8 * (items + workers))
    block = 8 * width * (n + 3 * cells + 12 * pairs + 3 * items + 12 * workers + work)
    if workers * labels <= FULL_INIT_DRAWS:
        block += 24 * min(workers, max(1, INIT_CHUNK // labels)) * labels
    result = 8 * (6 * cells + 4 * pairs + 8 * items + 6 * workers)
    return int(layout + blocks * block + result)


def format_bytes(size: float) -> str:
    """Bytes in binary units, as --max-memory reads them: 512 bytes, 3.2 MiB, 4.0 GiB."""
    if size < 1024:
        return f"{size:.0f} bytes"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        size /= 1024
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}"
    raise AssertionError("unreachable")


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_bytes(text: str) -> int:
    """'4G', '4GiB', '4gb', '500M', '1.5G' or a plain number of bytes; units are binary."""
    value = text.strip().lower().removesuffix("ib").removesuffix("b")
    unit = value[-1:] if value[-1:] in _UNITS else ""
    try:
        number = float(value[: len(value) - len(unit)])
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise ValueError(f"not a size: {text!r} (write e.g. 4G, 500M or 2000000000)")
    size = int(number * _UNITS[unit])
    if not size > 0:
        raise ValueError(f"a size must be positive, got {text!r}")
    return size


def check_memory(
    *,
    n_annotations: int,
    n_items: int,
    n_workers: int,
    n_labels: int,
    restarts: int,
    threads: int,
    max_memory: int,
    n_controls: int = 0,
) -> int:
    """The estimate, or MaceTooLarge naming the sizes and what to do when it exceeds max_memory."""
    needed = memory_estimate(
        n_annotations=n_annotations,
        n_items=n_items,
        n_workers=n_workers,
        n_labels=n_labels,
        restarts=restarts,
        threads=threads,
        n_controls=n_controls,
    )
    if needed > max_memory:
        blocks = max(1, min(threads, math.ceil(restarts / RESTARTS_PER_BLOCK)))
        advice = "allow more with max_memory (--max-memory on the command line)"
        if blocks > 1:
            advice += (
                f", or run one block of {RESTARTS_PER_BLOCK} restarts at a time instead of "
                f"{blocks} (threads=1, --threads 1), which needs less"
            )
        raise MaceTooLarge(
            f"MACE on {n_annotations:,} annotations ({n_items:,} items, {n_workers:,} workers, "
            f"{n_labels:,} labels) would need about {format_bytes(needed)}, more than the "
            f"{format_bytes(max_memory)} allowed",
            advice,
            needed=needed,
            limit=max_memory,
            blocks=blocks,
        )
    return needed


@dataclass(frozen=True)
class Layout:
    """Everything about the annotations that does not change between restarts.

    Items and workers are renumbered (``items.order``, ``workers.order``) so that those with the
    same number of cells (pairs) sit together; rows of cells and pairs follow that layout.
    """

    n_items: int
    n_workers: int
    n_labels: int
    items: GroupPlan  # cell rows grouped by item
    workers: GroupPlan  # pair rows grouped by worker
    cell_item: np.ndarray  # (C,) original item of each cell, sorted by (item, label)
    cell_label: np.ndarray  # (C,)
    pair_worker: np.ndarray  # (P,) original worker of each pair, sorted by (worker, label)
    pair_label: np.ndarray  # (P,)
    item_plan: SegmentPlan  # pair rows (ratios) -> cell rows (products)
    worker_plan: SegmentPlan  # cell rows (posteriors) -> pair rows (sums)
    counts: np.ndarray  # (pair rows, 1) annotations per pair; 0 for padding
    totals: np.ndarray  # (W, 1) annotations per worker, in layout order
    rest_weight: np.ndarray  # (I, 1) labels no annotation gave the item (0 for controls), layout order
    control_rows: np.ndarray  # cell rows forced to 0 by controls

    @property
    def cell_rows(self) -> np.ndarray:
        return self.items.member_row

    @property
    def pair_rows(self) -> np.ndarray:
        return self.workers.member_row


def build_layout(
    items: np.ndarray,
    workers: np.ndarray,
    labels: np.ndarray,
    n_items: int,
    n_workers: int,
    n_labels: int,
    controls: np.ndarray | None,
) -> Layout:
    cell_keys = items * n_labels + labels
    fixed = np.zeros(0, dtype=np.int64)
    if controls is not None:
        fixed = np.flatnonzero(controls >= 0)
        # A control's label gets a cell even when nobody gave it: its posterior is 1.
        cell_keys = np.concatenate([cell_keys, fixed * n_labels + controls[fixed]])
    cells, cell_of, _ = unique_inverse_counts(cell_keys, bound=n_items * n_labels)
    cell_of = cell_of[: len(items)]
    pairs, pair_of, _ = unique_inverse_counts(workers * n_labels + labels, bound=n_workers * n_labels)
    cell_item, cell_label = np.divmod(cells, n_labels)
    pair_worker, pair_label = np.divmod(pairs, n_labels)
    by_item = group_plan(cell_item, n_items)
    by_worker = group_plan(pair_worker, n_workers)
    cell_row = by_item.member_row[cell_of]
    pair_row = by_worker.member_row[pair_of]
    item_plan = segment_plan(cell_row, pair_row, by_item.n_rows, by_worker.n_rows)
    # Padding cells read the zero row just past the plan's own rows; cells only a control
    # created read its neutral row (a product of no ratios, 1).
    item_plan.dense_to_row[by_item.phantoms] = item_plan.n_rows
    worker_plan = segment_plan(pair_row, cell_row, by_worker.n_rows, by_item.n_rows)
    counts = np.bincount(pair_row, minlength=by_worker.n_rows).astype(np.float64)[:, None]
    totals = np.bincount(by_worker.position[workers], minlength=n_workers)
    rest = n_labels - np.bincount(cell_item, minlength=n_items).astype(np.float64)
    control_rows = np.zeros(0, dtype=np.intp)
    if controls is not None and fixed.size:
        rest[fixed] = 0.0
        controlled = np.isin(cell_item, fixed)
        other = controlled & (cell_label != controls[cell_item])
        control_rows = by_item.member_row[other]
    return Layout(
        n_items,
        n_workers,
        n_labels,
        by_item,
        by_worker,
        cell_item,
        cell_label,
        pair_worker,
        pair_label,
        item_plan,
        worker_plan,
        counts,
        totals.astype(np.float64)[:, None],
        rest[by_item.order][:, None],
        control_rows,
    )


def initial_parameters(
    layout: Layout, rngs: list[np.random.Generator]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random (s0, s1, theta) per restart, as (W, R), (W, R), (pair rows, R) in layout order.

    Each restart draws, as the original does, uniform parameters perturbed by INIT_NOISE: two
    per worker for guessing vs knowing, then one per worker and label for the strategy.
    """
    W, L, R = layout.n_workers, layout.n_labels, len(rngs)
    s0, s1 = np.empty((W, R)), np.empty((W, R))
    # Padding rows stay 0: they never meet an annotation, and sums over a worker skip them.
    theta = np.zeros((layout.workers.n_rows, R))
    rows, order = layout.pair_rows, layout.workers.order
    full = W * L <= FULL_INIT_DRAWS
    per_chunk = max(1, INIT_CHUNK // L)
    starts = np.searchsorted(layout.pair_worker, np.arange(0, W + per_chunk, per_chunk))
    given = np.bincount(layout.pair_worker, minlength=W)
    for r, rng in enumerate(rngs):
        spam = 1.0 + INIT_NOISE * rng.random((W, 2))
        spam /= spam.sum(axis=1, keepdims=True)
        s0[:, r], s1[:, r] = spam[order, 0], spam[order, 1]
        if full:
            for n, lo in enumerate(range(0, W, per_chunk)):
                chunk = 1.0 + INIT_NOISE * rng.random((min(per_chunk, W - lo), L))
                # Labels as rows, so that the sum adds them one by one, as the original does.
                draws = np.ascontiguousarray(chunk.T)
                norm = draws.sum(axis=0)
                at = slice(starts[n], starts[n + 1])
                local = layout.pair_worker[at] - lo
                theta[rows[at], r] = draws[layout.pair_label[at], local] / norm[local]
        else:
            draws = 1.0 + INIT_NOISE * rng.random(len(rows))
            # Weighted, so already float64: astype only tells the type checker so (no copy).
            norm = np.bincount(layout.pair_worker, draws, minlength=W).astype(np.float64, copy=False)
            norm += (L - given) * (1.0 + INIT_NOISE / 2)
            theta[rows, r] = draws / norm[layout.pair_worker]
    return s0, s1, theta
