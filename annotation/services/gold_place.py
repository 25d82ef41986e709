"""Where in a worker's sequence of items a gold question comes (``engine._claim_real_or_gold``).

The worker could note, item by item, whether the topic changed and how far through the item file
they moved (if they know the file's order, e.g. a public corpus). A gold question stands in for
the real item they are due, so it is drawn from that item's group; which one of the group, and
where the real items go on after it, is chosen so that the step to a gold question and the step
after it look like the steps between real items:

- *sequential*: a worker's real items come in small steps forward through the file. The gold
  question is the first of the group after the worker's previous item (the one they would meet
  next walking on, as if it were an item like the others), else the one nearest the real item;
- *spread* and *random*: the gold question nearest the real item (the earlier one when two are as
  near), so the step to it is the step to the real item;
- under *sequential* and *spread*, the real item after a gold question is the first due after the
  gold question's place (any due item when none is after it), so that the worker does not step
  back to the real item it stood in for.

Both are read on every claim, whatever the draw (the worker's previous item in a query of its
own, then the real item): a gold question takes the same reads to hand out as a real item.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Case, Exists, F, IntegerField, Q, QuerySet, Value, When
from django.db.models.functions import Abs

from annotation.models import Assignment, Item, Project, Purpose

# The orders under which a worker's real items move forward through the file.
FORWARD = (Project.Order.SEQUENTIAL, Project.Order.SPREAD)


def real_due(*, items: QuerySet[Item], unlocked: Callable[[], QuerySet[Item]], project: Project,
             worker: User) -> QuerySet[Item]:
    """``items`` (the real items the worker may claim; ``unlocked`` makes the same, read without
    locks, built only right after a gold question, the one claim that reads it)
    annotated with the position of the worker's previous item in the project
    (``previous_position``, None before their first), and under a forward order, right after a
    gold question, only those after its place while any is left.

    The previous item is read first, in a query of its own (by the index of a worker's
    assignments in a project, newest first), on every claim alike: the real items' query then
    carries it as a value, and asks whether any due item lies after a gold question's place only
    right after one (a range of the project's index), instead of on every claim."""
    last = (Assignment.objects.filter(project_id=project.pk, worker_id=worker.pk)
            .order_by("-assigned_at", "-pk").values_list("item__position", "purpose").first())
    previous, purpose = last if last is not None else (None, None)
    items = items.annotate(previous_position=Value(previous, output_field=IntegerField()))
    if project.assignment_order not in FORWARD or purpose != Purpose.GOLD:
        return items
    return items.filter(Q(position__gt=previous) | ~Exists(unlocked().filter(position__gt=previous)))


def gold_order(*, project: Project, stand_in: Item) -> tuple[Any, ...]:
    """How to sort the gold questions of the real item ``stand_in``'s group, the one to serve
    first (``stand_in`` as ``real_due`` read it)."""
    nearest = (Abs(F("position") - stand_in.position), "position", "id")
    previous = getattr(stand_in, "previous_position", None)
    if project.assignment_order != Project.Order.SEQUENTIAL or previous is None:
        return nearest
    ahead = Q(position__gt=previous)
    return (Case(When(ahead, then=Value(0)), default=Value(1), output_field=IntegerField()),
            Case(When(ahead, then=F("position")), default=Abs(F("position") - stand_in.position)),
            "position", "id")
