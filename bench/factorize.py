"""Benchmark: encoding a long frame's columns into codes, ours (identity first) vs ``pd.factorize``.

    .venv/bin/python bench/factorize.py [--annotations 1000000] [--items 200000] [--workers 2000]

A long frame from the database holds one string object per distinct item, worker and label,
repeated on every row (``analysis/frames.py`` builds it so). ``analysis.methods.codes.factorize``
groups the rows by object identity first (integers, cheap to hash) and hashes only the distinct
objects by value; it returns exactly what ``pd.factorize`` returns. This times, per column and
best of ``--repeat`` runs:

- ``pd.factorize`` (the peer) against ``factorize``, and prints the ratio;
- the identity step alone, two ways: ``object_ids`` (one copy of the object array's pointers,
  read through the buffer protocol) against ``id()`` called on every element, the
  one-object-at-a-time way to the same numbers. Where the second costs as much as hashing the
  strings, identity first gains nothing: that is why ``object_ids`` reads the array's memory in
  one call;
- a column of distinct string objects (text read from a file), where ``factorize`` falls back
  to ``pd.factorize`` after the identity step: its cost there is the overhead.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.methods.codes import factorize, object_ids  # noqa: E402


def best_of(repeat: int, function: Callable[..., Any], *args: Any) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args)
        best = min(best, time.perf_counter() - start)
    return best


def shared_objects(n: int, distinct: int, prefix: str, seed: int) -> np.ndarray:
    """``n`` rows drawn from ``distinct`` string objects, each value one object."""
    names = np.array([f"{prefix}-{i:08d}" for i in range(distinct)], dtype=object)
    return names[np.random.default_rng(seed).integers(0, distinct, n)]


def ids_one_by_one(array: np.ndarray) -> np.ndarray:
    return np.fromiter(map(id, array), dtype=np.uintp, count=array.size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotations", type=int, default=1_000_000)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--workers", type=int, default=2_000)
    parser.add_argument("--labels", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.annotations
    columns = {
        "item": shared_objects(n, args.items, "item", 1),
        "worker": shared_objects(n, args.workers, "worker", 2),
        "label": shared_objects(n, args.labels, "label", 3),
    }
    print(f"{n:,} rows; one string object per distinct value (as the frame builder gives)")
    total_theirs = total_ours = 0.0
    for name, values in columns.items():
        codes, uniques = factorize(values)
        expected_codes, expected_uniques = pd.factorize(values)
        assert np.array_equal(codes, expected_codes) and list(uniques) == list(expected_uniques)
        assert np.array_equal(object_ids(values), ids_one_by_one(values))
        theirs = best_of(args.repeat, pd.factorize, values)
        ours = best_of(args.repeat, factorize, values)
        pointers = best_of(args.repeat, object_ids, values)
        one_by_one = best_of(args.repeat, ids_one_by_one, values)
        total_theirs, total_ours = total_theirs + theirs, total_ours + ours
        distinct = len(uniques)
        print(
            f"  {name:<6} ({distinct:>7,} distinct): pd.factorize {theirs * 1e3:7.1f} ms, "
            f"ours {ours * 1e3:6.1f} ms, ratio {theirs / ours:4.1f}x | identity step: "
            f"object_ids {pointers * 1e3:5.2f} ms, id() per element {one_by_one * 1e3:6.1f} ms "
            f"({one_by_one / pointers:,.0f}x; {one_by_one / theirs:.0%} of pd.factorize)"
        )
    print(
        f"  three columns: pd.factorize {total_theirs * 1e3:.1f} ms, ours {total_ours * 1e3:.1f} ms, "
        f"ratio {total_theirs / total_ours:.1f}x"
    )
    distinct_objects = np.array(
        ["".join(("w", str(i % args.workers))) for i in range(n)], dtype=object
    )
    theirs = best_of(args.repeat, pd.factorize, distinct_objects)
    ours = best_of(args.repeat, factorize, distinct_objects)
    print(
        f"{n:,} rows of {args.workers:,} values, every row its own string object (text read "
        f"from a file): pd.factorize {theirs * 1e3:.1f} ms, ours {ours * 1e3:.1f} ms "
        f"(ratio {theirs / ours:.2f}x: the identity step finds nothing to share and falls back)"
    )


if __name__ == "__main__":
    main()
