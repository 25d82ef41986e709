"""Text columns of the long frame read in bulk: one string per chunk of rows, split into an
object array in which equal values are one string object (``analysis.frames``' PostgreSQL path).
Pure numpy and pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd

# Separators of text values sent as one string per chunk (no stored text holds them: answer
# values are a task type's choices; a chunk where one does falls back to an array).
SEP, NULL = "\x1f", "\x1e"


# Values up to this many bytes of UTF-8 are read as integers (the bytes, zero-padded).
SHORT = 8


def short_strings(joined: str, n: int) -> np.ndarray | None:
    """What ``shared_strings(joined.split(SEP))`` gives, without a Python string per row, when
    every one of the ``n`` values is at most ``SHORT`` bytes long (labels are): each value's
    bytes, zero-padded, are one integer, so finding the distinct values is integer work. None
    when a value is longer, or when the count of separators is not ``n - 1`` (a value holds one)."""
    if n == 0:
        return None
    data = joined.encode()
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(raw == ord(SEP))
    if len(ends) != n - 1:
        return None
    starts = np.empty(n, dtype=np.int64)
    starts[0], starts[1:] = 0, ends + 1
    lengths = np.append(ends, len(raw)) - starts
    if lengths.max() > SHORT:
        return None
    # The 8 bytes from every start, as one little-endian integer: eight copies of the text as
    # 64-bit words, each shifted by one byte, so that any start is a whole word of one of them.
    padded = data + bytes(2 * SHORT)
    count = len(data) // SHORT + 1
    words = np.stack([np.frombuffer(padded, dtype="<u8", count=count, offset=shift) for shift in range(SHORT)])
    # PostgreSQL text holds no NUL byte, so zero padding keeps distinct values distinct.
    masks = np.array([(1 << (8 * k)) - 1 for k in range(SHORT + 1)], dtype=np.uint64)
    keys = words[starts % SHORT, starts // SHORT] & masks[lengths]
    codes, uniques = pd.factorize(keys)
    first = np.empty(len(uniques), dtype=np.int64)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)
    table = np.empty(len(uniques), dtype=object)
    for u, row in enumerate(first):
        text = data[starts[row]: starts[row] + lengths[row]].decode()
        table[u] = None if text == NULL else text
    return table[codes]


def shared_strings(values: list) -> np.ndarray:
    """An object array of answer values in which equal values are one string object (answers
    take few distinct values: this keeps millions of rows to a pointer each); ``NULL`` and
    None are None."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)
    table = np.empty(len(uniques) + 1, dtype=object)
    table[:-1] = [None if u == NULL else u for u in uniques]
    table[-1] = None
    return table[codes]
