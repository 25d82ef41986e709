"""Reads behind the promotion of real items to gold questions: the items whose counted answers
are unanimous (``quality.services.gold_items.items_promote_gold`` writes)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from django.db.models import Count

from annotation.models import Annotation, Assignment, Item, ItemKind, Project, Purpose
from annotation.selectors.counted import excluded_worker_ids
from annotation.task_types import get_task_type
from annotation.task_types.base import FieldError, TaskType

# Items read per query when looking for unanimous ones.
CHUNK = 2000


def _gold_value(task: TaskType, answer: Mapping[str, Any]) -> tuple:
    """The gold fields of an answer, comparable: a set of choices in one order."""
    kinds = {f.name: f.kind for f in task.answer_fields if f.name in task.gold_fields}
    value: list[tuple[str, ...] | str | None] = []
    for name in task.gold_fields:
        given = answer.get(name)
        if kinds.get(name) == "choices":
            value.append(tuple(sorted(str(v) for v in given or ())))
        else:
            value.append(None if given is None else str(given))
    return tuple(value)


def _gold_data(task: TaskType, value: tuple) -> dict[str, Any]:
    return {name: list(v) if isinstance(v, tuple) else v for name, v in zip(task.gold_fields, value, strict=True)}


def unanimous_items(*, project: Project, min_answers: int, limit: int | None = None) -> list[tuple[Item, dict, dict]]:
    """Real items of the project whose counted answers (at least ``min_answers``) all hold the
    same gold fields, in import order: (item, the known answer, the evidence). Two queries per
    ``CHUNK`` items with enough answers, whatever the number of answers."""
    task = get_task_type(project.task_type)
    if not task.gold_fields:  # a type without gold questions has none to promote
        return []
    # A blocked worker's answers make no item unanimous while they are out of the data.
    excluded = excluded_worker_ids(project=project)
    counted = Assignment.objects.filter(project=project, purpose=Purpose.TASK, status__in=Assignment.COUNTED_STATUSES,
                                        item__kind=ItemKind.REAL).exclude(worker_id__in=excluded)
    enough = list(counted.values("item_id").annotate(n=Count("pk")).filter(n__gte=min_answers)
                  .order_by("item__position", "item_id").values_list("item_id", flat=True))
    found: list[tuple[Item, dict, dict]] = []
    for start in range(0, len(enough), CHUNK):
        chunk = enough[start:start + CHUNK]
        votes: dict[int, list[tuple[str, tuple]]] = defaultdict(list)
        for item_id, worker, answer in (Annotation.objects.filter(
                assignment__item_id__in=chunk, assignment__purpose=Purpose.TASK,
                assignment__status__in=Assignment.COUNTED_STATUSES).exclude(assignment__worker_id__in=excluded)
                .order_by("pk").values_list("assignment__item_id", "assignment__worker__username", "answer")):
            votes[item_id].append((worker, _gold_value(task, answer or {})))
        items = Item.objects.in_bulk(chunk)
        for item_id in chunk:
            values = Counter(value for _, value in votes[item_id])
            if len(values) != 1:
                continue
            (value, n), = values.items()
            item = items[item_id]
            try:
                gold = task.clean_gold(_gold_data(task, value), payload=item.payload)
            except FieldError:  # e.g. answers naming an option the item no longer has
                continue
            evidence = {"answers": n, "votes": [{"worker": w, **_gold_data(task, v)} for w, v in votes[item_id]]}
            found.append((item, gold.answer, evidence))
            if limit is not None and len(found) >= limit:
                return found
    return found
