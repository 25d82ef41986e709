"""Byte ranges of a file as sets: the bytes of a media file sent for an assignment, request by
request, kept as their union (sorted, disjoint [start, end) ranges)."""

from __future__ import annotations

from collections.abc import Sequence

# A record of the bytes sent keeps at most this many separate ranges (a player asks for a few);
# past it the smallest go, which can only make the record say less was sent than was.
MAX_SERVED_RANGES = 256


def ranges_union(ranges: Sequence[Sequence[int]], start: int, end: int) -> list[list[int]]:
    """The sorted, disjoint [start, end) ranges ``ranges`` with [``start``, ``end``) added:
    overlapping and touching ranges merge into one."""
    merged: list[list[int]] = []
    for lo, hi in sorted([*([int(a), int(b)] for a, b in ranges), [start, end]]):
        if hi <= lo:
            continue
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if len(merged) > MAX_SERVED_RANGES:
        kept = sorted(merged, key=lambda r: r[1] - r[0], reverse=True)[:MAX_SERVED_RANGES]
        merged = sorted(kept)
    return merged


def ranges_length(ranges: Sequence[Sequence[int]]) -> int:
    """How many bytes sorted, disjoint [start, end) ranges cover."""
    return sum(max(int(b) - int(a), 0) for a, b in ranges)
