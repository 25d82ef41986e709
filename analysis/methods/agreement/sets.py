"""Distances between set-valued answers (multi-select items), for Krippendorff's alpha.

- Jaccard distance: ``1 - |A ∩ B| / |A ∪ B|`` (0 for two empty answers).
- MASI distance (Passonneau 2006, "Measuring agreement on set-valued items (MASI) for semantic
  and pragmatic annotation", LREC): ``1 - J · M`` with ``J`` the Jaccard similarity and the
  monotonicity ``M`` = 1 if ``A = B``, 2/3 if one contains the other, 1/3 if they overlap
  otherwise, 0 if disjoint. (NLTK's ``masi_distance`` rounds 2/3 and 1/3 to 0.67 and 0.33.)

The distinct answers of a project are encoded once as bit masks (64 options per word), so the
distances between any arrays of answer codes are vectorised popcounts.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

import numpy as np

SetDistance = Literal["masi", "jaccard"]
SET_DISTANCES: tuple[SetDistance, ...] = ("masi", "jaccard")


def jaccard_distance(first: Iterable[Hashable], second: Iterable[Hashable]) -> float:
    a, b = set(first), set(second)
    union = len(a | b)
    return 0.0 if union == 0 else 1.0 - len(a & b) / union


def masi_distance(first: Iterable[Hashable], second: Iterable[Hashable]) -> float:
    a, b = set(first), set(second)
    if a == b:
        return 0.0
    if a <= b or b <= a:
        monotonicity = 2 / 3
    elif a & b:
        monotonicity = 1 / 3
    else:
        return 1.0
    return 1.0 - len(a & b) / len(a | b) * monotonicity


class SetDistances:
    """Distances between the distinct answers ``answers[c]`` addressed by their codes ``c``."""

    def __init__(self, answers: Sequence[frozenset[Hashable]], distance: SetDistance) -> None:
        if distance not in SET_DISTANCES:
            raise ValueError(
                f"unknown set distance {distance!r}; known: {', '.join(SET_DISTANCES)}"
            )
        self.distance = distance
        options = sorted(
            set().union(*answers), key=lambda option: (type(option).__name__, str(option))
        )
        index = {option: position for position, option in enumerate(options)}
        words = max(1, -(-len(options) // 64))
        masks = np.zeros((len(answers), words), dtype=np.uint64)
        for code, answer in enumerate(answers):
            for option in answer:
                position = index[option]
                masks[code, position // 64] |= np.uint64(1) << np.uint64(position % 64)
        self.masks = masks
        self.sizes = np.bitwise_count(masks).sum(axis=1).astype(np.int64)

    def __call__(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Distances between answer codes ``first`` and ``second`` (broadcast together)."""
        first, second = np.broadcast_arrays(np.asarray(first), np.asarray(second))
        common = (
            np.bitwise_count(self.masks[first] & self.masks[second]).sum(axis=-1).astype(np.int64)
        )
        size_a, size_b = self.sizes[first], self.sizes[second]
        union = size_a + size_b - common
        similarity = np.divide(common, union, out=np.ones(common.shape), where=union > 0)
        if self.distance == "jaccard":
            jaccard: np.ndarray = 1.0 - similarity
            return jaccard
        monotonicity = np.select(
            [common == union, common == np.minimum(size_a, size_b), common > 0],
            [1.0, 2 / 3, 1 / 3],
            0.0,
        )
        masi: np.ndarray = 1.0 - similarity * monotonicity
        return masi
