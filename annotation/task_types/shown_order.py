"""The order an assignment shows an item's options in: drawn from the assignment's key.

A task type names the parts of an item whose options may be reordered
(``TaskType.shown_order_parts``); the engine draws one order per assignment when it opens it and
stores it, so a reload, a refused submission shown again and the API all show the same order,
and the export and the analyses know what the worker saw. Answers never depend on it: they name
options by their ids.

The seed is the assignment's natural key, its item and worker (``assignment_seed``): a worker
has at most one assignment per item, so the order is as reproducible as from the row's id, and
it is known before the row is written, which saves the hot path an UPDATE per item.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

Order = dict[str, list[Any]]


def assignment_seed(*, item_id: int, worker_id: int) -> str:
    """The seed of an assignment's order: its item and worker."""
    return f"{item_id}-{worker_id}"


def draw_order(parts: Mapping[str, list[Any]], *, seed: str) -> Order:
    """Each part's options in an order drawn uniformly from ``seed`` (``assignment_seed``), the
    same on every machine and Python version: a seed given as text is hashed with SHA-512 and
    ``shuffle`` draws with ``randbelow``, both fixed since Python 3.2."""
    drawn: Order = {}
    for part, ids in parts.items():
        shuffled = list(ids)
        random.Random(f"{seed}:{part}").shuffle(shuffled)
        drawn[part] = shuffled
    return drawn


def order_for(*, parts: Mapping[str, list[Any]], seed: str, keep_import_order: bool) -> Order | None:
    """What an assignment with ``seed`` stores: the drawn order, or the import order when the
    project keeps it; None for a type with nothing to reorder."""
    if not any(parts.values()):
        return None
    return {part: list(ids) for part, ids in parts.items()} if keep_import_order else draw_order(parts, seed=seed)
