"""Rows of probabilities over labels where most labels share one value.

An item's MACE posterior over the labels nobody gave it is the same for all of them, and so is a
worker's guessing strategy over the labels it never gave. With thousands of distinct labels the
dense items x labels matrix would dwarf the annotations; this keeps the entries that differ and
one value per row for the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from analysis.methods.mace.layout import DEFAULT_MAX_MEMORY, MaceTooLarge, format_bytes


@dataclass(frozen=True)
class SparseRows:
    """A (n_rows, n_columns) matrix: listed entries, and ``other[row]`` everywhere else in a row.

    Entries are sorted by row, then column, with no repeats; arrays are read-only.
    """

    shape: tuple[int, int]
    rows: np.ndarray  # (n,) row of each listed entry
    columns: np.ndarray  # (n,) its column
    values: np.ndarray  # (n,) its value
    other: np.ndarray  # (n_rows,) the value of every entry of the row that is not listed

    def listed(self) -> np.ndarray:
        """(n_rows,) listed entries per row."""
        return np.bincount(self.rows, minlength=self.shape[0])

    def others(self) -> np.ndarray:
        """(n_rows,) entries per row that take the shared value."""
        return self.shape[1] - self.listed()

    def row(self, row: int) -> np.ndarray:
        """One row, dense."""
        lo, hi = np.searchsorted(self.rows, [row, row + 1])
        out = np.full(self.shape[1], self.other[row])
        out[self.columns[lo:hi]] = self.values[lo:hi]
        return out

    def toarray(self, *, max_memory: int | None = None) -> np.ndarray:
        """The dense matrix; MaceTooLarge if it would take more than ``max_memory`` bytes."""
        limit = DEFAULT_MAX_MEMORY if max_memory is None else max_memory
        needed = 8 * self.shape[0] * self.shape[1]
        if needed > limit:
            raise MaceTooLarge(
                f"a dense {self.shape[0]:,} x {self.shape[1]:,} matrix would take "
                f"{format_bytes(needed)}, more than the {format_bytes(limit)} allowed",
                "read the sparse form instead (rows, columns, values and other, or row(i))",
                needed=needed,
                limit=limit,
            )
        out = np.empty(self.shape)
        out[:] = self.other[:, None]
        out[self.rows, self.columns] = self.values
        return out

    def sums(self) -> np.ndarray:
        """(n_rows,) each row's total."""
        listed = np.bincount(self.rows, weights=self.values, minlength=self.shape[0])
        totals: np.ndarray = listed + self.others() * self.other
        return totals

    def normalised(self) -> SparseRows:
        """Each row divided by its total."""
        totals = self.sums()
        return SparseRows(
            self.shape,
            self.rows,
            self.columns,
            _frozen(self.values / totals[self.rows]),
            _frozen(self.other / totals),
        )

    def entropy(self) -> np.ndarray:
        """(n_rows,) entropy in nats of each row, read as a distribution."""
        with np.errstate(divide="ignore", invalid="ignore"):
            listed = np.where(self.values > 0, self.values * np.log(self.values), 0.0)
            other = np.where(self.other > 0, self.other * np.log(self.other), 0.0)
        terms = np.bincount(self.rows, weights=listed, minlength=self.shape[0])
        # 0.0 - 0.0 is +0.0, as the original writes it
        entropies: np.ndarray = 0.0 - (terms + self.others() * other)
        return entropies

    def argmax(self) -> np.ndarray:
        """(n_rows,) the column of each row's largest value; the first of equals, as on the dense row."""
        n_rows, n_columns = self.shape
        starts = np.searchsorted(self.rows, np.arange(n_rows))
        present = self.listed() > 0
        best = np.full(n_rows, -np.inf)
        best_column = np.full(n_rows, n_columns)
        if self.values.size:
            best[present] = np.maximum.reduceat(self.values, starts[present])
            hits = np.flatnonzero(self.values == best[self.rows])
            hit_rows, first = np.unique(self.rows[hits], return_index=True)
            best_column[hit_rows] = self.columns[hits[first]]
        # The first column not listed: listed columns are sorted and distinct, so it is the first
        # position whose column is larger than the position.
        position = np.arange(len(self.rows)) - starts[self.rows]
        gaps = np.flatnonzero(self.columns != position)
        gap_rows, first = np.unique(self.rows[gaps], return_index=True)
        missing = self.listed()
        missing[gap_rows] = position[gaps[first]]
        has_other = missing < n_columns
        other_wins = has_other & (
            (self.other > best) | ((self.other == best) & (missing < best_column))
        )
        return np.where(other_wins, missing, best_column)


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.asarray(array)
    array.flags.writeable = False
    return array


def sparse_rows(
    shape: tuple[int, int],
    rows: ArrayLike,
    columns: ArrayLike,
    values: ArrayLike,
    other: ArrayLike,
) -> SparseRows:
    """SparseRows from entries sorted by (row, column), made read-only."""
    return SparseRows(
        (int(shape[0]), int(shape[1])),
        _frozen(np.asarray(rows, dtype=np.intp)),
        _frozen(np.asarray(columns, dtype=np.intp)),
        _frozen(np.asarray(values, dtype=np.float64)),
        _frozen(np.asarray(other, dtype=np.float64)),
    )
