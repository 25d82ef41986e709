"""Each real item's N (``Item.redundancy``) when answers leave the data: a worker blocked in a
project whose answers are left out (``annotation.selectors.counted``; quality control moves them
when it blocks or unblocks a worker).

The promise of N distinct annotators per item is kept by the item's N, not by its answers: an
answer that left the data still holds its slot (``Item.n_active`` counts assignments, and the
engine and reviews move it with their status alone), so each item it was given to is opened for
one more answer by raising the item's ``redundancy`` by one. The raise is derived, never
counted up and down: an item's N is the project's N plus the slots held by answers that left the
data, and never below the slots it has given (``item_slots_refresh``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Count, Q

from annotation.models import Assignment, Item, ItemKind, Project, Purpose
from annotation.selectors.counted import excluded_worker_ids

# Real items are read and written in chunks of this many ids (SQLite's bound on parameters).
CHUNK = 900


def _held_by_excluded(*, project: Project, item_ids: list[int] | None) -> dict[int, int]:
    """Item id -> its slots held by answers that left the data (a blocked worker's counted task answers)."""
    held = Assignment.objects.filter(project=project, purpose=Purpose.TASK, status__in=Assignment.COUNTED_STATUSES,
                                     worker_id__in=excluded_worker_ids(project=project))
    if item_ids is not None:
        held = held.filter(item_id__in=item_ids)
    return dict(held.values("item_id").annotate(n=Count("pk")).order_by().values_list("item_id", "n"))


def item_slots_refresh(*, project: Project, item_ids: Iterable[int] | None = None) -> int:
    """Set each real item's N (of ``item_ids``, or of the whole project) to the project's N plus
    the slots held by answers that left the data, never below the slots it has given. Returns
    how many items changed. Locks the items it reads, in id order, so that no claim fills a slot
    between the read and the write."""
    ids = None if item_ids is None else sorted(set(item_ids))
    with transaction.atomic():
        held = _held_by_excluded(project=project, item_ids=ids)
        items = Item.objects.filter(project=project, kind=ItemKind.REAL)
        if ids is None:
            # Items whose N is raised now, or was raised before (the project's N is their floor).
            items = items.filter(Q(pk__in=list(held)) | Q(redundancy__gt=project.redundancy))
        else:
            items = items.filter(pk__in=ids)
        rows = list(items.order_by("pk").select_for_update().values_list("pk", "n_active", "redundancy"))
        by_target: dict[int, list[int]] = defaultdict(list)
        for pk, n_active, redundancy in rows:
            target = max(project.redundancy + held.get(pk, 0), n_active)
            if target != redundancy:
                by_target[target].append(pk)
        for target, pks in by_target.items():
            for start in range(0, len(pks), CHUNK):
                Item.objects.filter(pk__in=pks[start:start + CHUNK]).update(redundancy=target)
    return sum(len(pks) for pks in by_target.values())
