"""Segmented reductions over sparse annotations, for a block of restarts at once.

A table holds one row per source (e.g. per label and worker) with one column per restart. A
segment is the set of annotations that share a key (e.g. one label of one item); reducing it
means gathering its source rows and multiplying or adding them. Segments are bucketed by size so
that each bucket is one gather and a few vectorised ops, whatever the number of segments.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from analysis.methods.codes import stable_argsort

# Segments up to this many annotations get a bucket of their own; longer ones are padded up a
# geometric ladder (x1.5), which bounds the numpy calls for heavy-tailed workers and the padding.
EXACT_SEGMENT_SIZES = 8
# Rows gathered per numpy call: keeps the gathered block (and its sum) in the L2 cache.
BLOCK_ROWS = 8192


def aligned_empty(shape: tuple[int, ...]) -> np.ndarray:
    """An uninitialised float64 array starting on a cache line (gathers copy whole rows)."""
    size = math.prod(shape)
    raw = np.empty(size + 8)
    offset = (-raw.ctypes.data % 64) // 8
    return raw[offset : offset + size].reshape(shape)


@dataclass(frozen=True)
class _Block:
    index: np.ndarray  # source rows, slot-major: (size, count) flattened
    size: int  # annotations per segment (padded)
    start: int  # first output row
    count: int  # segments in the block


@dataclass(frozen=True)
class SegmentPlan:
    """How to reduce rows of a table into segments with few numpy calls.

    The table has the segments of two or more annotations first (the outputs), then the
    ``n_sources`` source rows, then one neutral row that padding and empty cells point at. A
    segment of one annotation is just its source row, so it is neither gathered nor copied.
    """

    blocks: tuple[_Block, ...]
    n_reduced: int
    n_sources: int
    # For every dense cell (e.g. label * n_items + item): the table row holding its value.
    dense_to_row: np.ndarray
    max_block_rows: int
    ones: np.ndarray  # as long as the longest padded segment: sums long segments as a dot product

    @property
    def n_rows(self) -> int:
        return self.n_reduced + self.n_sources + 1


def padded_sizes(longest: int) -> np.ndarray:
    """Sizes a segment longer than EXACT_SEGMENT_SIZES is padded to: steps of 1.5x up to
    ``longest``, so that segments of similar length share a block."""
    ladder = [EXACT_SEGMENT_SIZES]
    while ladder[-1] < longest:
        ladder.append(math.ceil(ladder[-1] * 1.5))
    return np.array(ladder)


def segment_plan(
    keys: np.ndarray, sources: np.ndarray, n_dense: int, n_sources: int
) -> SegmentPlan:
    """Group annotations by ``keys`` (dense cells) into segments of ``sources`` rows."""
    order = stable_argsort(keys, bound=n_dense)
    sorted_keys, sorted_sources = keys[order], sources[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    sizes = np.diff(np.r_[starts, len(sorted_keys)])
    ladder = padded_sizes(int(sizes.max()))
    padded = np.where(sizes <= EXACT_SEGMENT_SIZES, sizes, ladder[np.searchsorted(ladder, sizes)])
    single = sizes == 1
    multi = np.flatnonzero(~single)
    multi = multi[np.argsort(padded[multi], kind="stable")]
    n_reduced = len(multi)
    dense_to_row = np.full(n_dense, n_reduced + n_sources, dtype=np.intp)
    dense_to_row[sorted_keys[starts[single]]] = n_reduced + sorted_sources[starts[single]]
    dense_to_row[sorted_keys[starts[multi]]] = np.arange(n_reduced)
    blocks, first = [], 0
    for size in np.unique(padded[multi]).tolist():
        segments = multi[padded[multi] == size]
        slot = np.arange(size)[:, None]
        rows = np.minimum(starts[segments][None, :] + slot, len(sorted_sources) - 1)
        index = np.where(slot < sizes[segments][None, :], sorted_sources[rows], n_sources)
        per_block = max(1, BLOCK_ROWS // size)
        for lo in range(0, len(segments), per_block):
            part = np.ascontiguousarray(index[:, lo : lo + per_block], dtype=np.intp)
            blocks.append(_Block(part.ravel(), size, first + lo, part.shape[1]))
        first += len(segments)
    max_rows = max((b.size * b.count for b in blocks), default=1)
    longest = max((b.size for b in blocks), default=1)
    return SegmentPlan(
        tuple(blocks), n_reduced, n_sources, dense_to_row, max_rows, np.ones(longest)
    )


def segment_reduce(plan: SegmentPlan, table: np.ndarray, work: np.ndarray, op: np.ufunc) -> None:
    """Write each reduced segment's op-reduction of its source rows (columns are restarts)."""
    # Two views that do not overlap, so that take() needs no temporary copy.
    sources, outputs = table[plan.n_reduced :], table[: plan.n_reduced]
    width = table.shape[1]
    for block in plan.blocks:
        target = outputs[block.start : block.start + block.count]
        rows = work[: block.size * block.count]
        sources.take(block.index, axis=0, out=rows, mode="clip")
        slots = rows.reshape(block.size, block.count, width)
        if op is np.add and block.size > 2:
            # A sum over the slots is a vector-matrix product: one BLAS call, fast whatever the
            # shape, where reduce() over a long axis with a short inner loop crawls.
            flat = rows.reshape(block.size, block.count * width)
            np.dot(plan.ones[: block.size], flat, out=target.reshape(-1))
        elif block.size <= EXACT_SEGMENT_SIZES:
            op(slots[0], slots[1], out=target)
            for extra in slots[2:]:
                op(target, extra, out=target)
        else:
            op.reduce(slots, axis=0, out=target)


@dataclass(frozen=True)
class _Bucket:
    start: int  # first row
    size: int  # rows per group (padded)
    first: int  # first group, in layout order
    count: int  # groups in the bucket

    @property
    def stop(self) -> int:
        return self.start + self.size * self.count


@dataclass(frozen=True)
class GroupPlan:
    """Rows that belong to groups (the label cells of an item, the labels a worker gave), laid
    out so that a group's total or a per-group factor is a few numpy calls, with no gather.

    Groups are renumbered so that groups of the same (padded) size are consecutive; each such
    bucket holds its rows slot-major, as a dense (size, count) block. Padding rows ("phantoms")
    belong to no member; whoever fills the rows keeps them at the neutral value of the sum.
    """

    buckets: tuple[_Bucket, ...]
    order: np.ndarray  # (n_groups,) original group at each layout position
    position: np.ndarray  # (n_groups,) layout position of each original group
    member_row: np.ndarray  # (n_members,) row of each member
    phantoms: np.ndarray  # rows that hold no member
    n_rows: int

    def blocks(self, values: np.ndarray, *rows: np.ndarray) -> Iterator[tuple[np.ndarray, ...]]:
        """Per non-empty bucket: the groups' ``values`` as (1, count, ...) and each array of
        ``rows`` as (size, count, ...), so that one broadcasting op covers the bucket."""
        for b in self.buckets:
            if b.size:
                shape = (b.size, b.count) + rows[0].shape[1:]
                yield (values[b.first : b.first + b.count][None],) + tuple(
                    r[b.start : b.stop].reshape(shape) for r in rows
                )

    def sum(self, rows: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out[group] = sum of the group's rows (phantoms included), in slot order."""
        for b in self.buckets:
            target = out[b.first : b.first + b.count]
            if b.size == 0:
                target.fill(0.0)
            elif b.size == 1:
                np.copyto(target, rows[b.start : b.stop])
            elif b.size <= EXACT_SEGMENT_SIZES:
                block = rows[b.start : b.stop].reshape((b.size, b.count) + rows.shape[1:])
                np.add(block[0], block[1], out=target)
                for extra in block[2:]:
                    np.add(target, extra, out=target)
            else:
                # Over the flattened (size, count x width) block, reduce() runs a long inner
                # loop; BLAS would be no faster and spins up threads on a busy machine.
                flat = rows[b.start : b.stop].reshape(b.size, -1)
                np.add.reduce(flat, axis=0, out=target.reshape(-1))
        return out

    def max(self, rows: np.ndarray, out: np.ndarray, empty: float) -> np.ndarray:
        """out[group] = max of the group's rows; ``empty`` for a group without rows."""
        for b in self.buckets:
            target = out[b.first : b.first + b.count]
            if b.size == 0:
                target.fill(empty)
            else:
                block = rows[b.start : b.stop].reshape((b.size, b.count) + rows.shape[1:])
                np.maximum.reduce(block, axis=0, out=target)
        return out


def group_plan(groups: np.ndarray, n_groups: int) -> GroupPlan:
    """Lay out members by group; ``groups`` must be sorted, and a member's slot is its rank in
    its group (so the order within a group is the caller's)."""
    sizes = np.bincount(groups, minlength=n_groups)
    longest = int(sizes.max(initial=0))
    ladder = padded_sizes(longest)
    padded = np.where(sizes <= EXACT_SEGMENT_SIZES, sizes, ladder[np.searchsorted(ladder, sizes)])
    order = np.argsort(padded, kind="stable")
    position = np.empty(n_groups, dtype=np.intp)
    position[order] = np.arange(n_groups)
    buckets, start, first = [], 0, 0
    bucket_start = np.zeros(n_groups, dtype=np.intp)  # per layout position
    bucket_count = np.ones(n_groups, dtype=np.intp)
    bucket_first = np.zeros(n_groups, dtype=np.intp)
    for size in np.unique(padded).tolist():
        count = int((padded == size).sum())
        buckets.append(_Bucket(start, size, first, count))
        bucket_start[first : first + count] = start
        bucket_count[first : first + count] = count
        bucket_first[first : first + count] = first
        start += size * count
        first += count
    group_start = np.r_[0, np.cumsum(sizes)[:-1]] if n_groups else np.zeros(0, dtype=np.intp)
    slot = np.arange(len(groups)) - group_start[groups]
    at = position[groups]
    member_row = bucket_start[at] + slot * bucket_count[at] + (at - bucket_first[at])
    used = np.zeros(start, dtype=bool)
    used[member_row] = True
    return GroupPlan(
        tuple(buckets),
        order,
        position,
        member_row.astype(np.intp),
        np.flatnonzero(~used),
        start,
    )
