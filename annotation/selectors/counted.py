"""Which answers are data: the one rule every reader of a project's annotations applies (the
long frame and so agreement, MACE and every report; the raw and per-type exports; the item
table's votes; the answers per hour).

An answer is an annotation of its item when its assignment was handed out as a task (``purpose``
``task``; gold and training answers are scored for the worker instead) and its item was not
withdrawn (a withdrawn item's answers leave the data). A gold question promoted from a real item
keeps its earlier answers: they were given as tasks. Counted answers are, besides, submitted or
approved (not rejected, not late).

Withdrawn items are few: they are read as a subquery through the index on the items' kind, so
that no reader joins every answer's item for this rule.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from annotation.models import Assignment, GoldAnswer, Item, ItemKind, Project, Purpose


def withdrawn_item_ids(*, project: Project) -> QuerySet:
    """The ids of the project's withdrawn items, as a subquery."""
    return Item.objects.filter(project=project, kind=ItemKind.WITHDRAWN).values("pk")


def answers_as_data(*, project: Project, prefix: str = "") -> Q:
    """Assignments (reached through ``prefix``, e.g. ``assignment__``) whose answers are data."""
    return Q(**{f"{prefix}purpose": Purpose.TASK}) & ~Q(**{f"{prefix}item_id__in": withdrawn_item_ids(project=project)})


def counted_as_data(*, project: Project, prefix: str = "") -> Q:
    """``answers_as_data`` that count: submitted or approved."""
    return Q(**{f"{prefix}status__in": Assignment.COUNTED_STATUSES}) & answers_as_data(project=project, prefix=prefix)


def data_items(*, project: Project) -> QuerySet[Item]:
    """The project's items that are data: real ones, and gold questions promoted from real items
    (their earlier answers stay data); never an imported gold question, a training item or a
    withdrawn item."""
    return Item.objects.filter(project=project).filter(
        Q(kind=ItemKind.REAL) | Q(kind=ItemKind.GOLD, gold_answer__source=GoldAnswer.Source.PROMOTED))
