"""Which answers are data: the one rule every reader of a project's annotations applies (the
long frame and so agreement, MACE and every report; the raw and per-type exports; the item
table's votes; the answers per hour).

An answer is an annotation of its item when its assignment was handed out as a task (``purpose``
``task``; gold and training answers are scored for the worker instead) and its item was not
withdrawn (a withdrawn item's answers leave the data), and its worker is not blocked in the
project while the project leaves blocked workers' answers out (``QualityPolicy.
blocked_answers_excluded``, on unless a project turns it off: an unblock brings them back). A
gold question promoted from a real item keeps its earlier answers: they were given as tasks.
Counted answers are, besides, submitted or approved (not rejected, not late).

Withdrawn items are few: they are read as a subquery through the index on the items' kind, so
that no reader joins every answer's item for this rule.
Blocked workers are fewer still: read as a subquery through the index on the standings'
(project, state), with the project's option in the same subquery (built by quality control and
asked through ``annotation.quality_port``).
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

import annotation.quality_port as quality_port
from annotation.models import Assignment, Item, ItemKind, Project, Purpose


def withdrawn_item_ids(*, project: Project) -> QuerySet:
    """The ids of the project's withdrawn items, as a subquery."""
    return Item.objects.filter(project=project, kind=ItemKind.WITHDRAWN).values("pk")


def excluded_worker_ids(*, project: Project) -> QuerySet:
    """The ids of the workers whose answers left the project's data (blocked in it, while the
    project leaves blocked workers' answers out), as a subquery."""
    return quality_port.excluded_worker_ids(project=project)


def answers_as_data(*, project: Project, prefix: str = "", include_blocked: bool = False) -> Q:
    """Assignments (reached through ``prefix``, e.g. ``assignment__``) whose answers are data;
    ``include_blocked`` keeps the answers of blocked workers (an export on request, to audit)."""
    rule = Q(**{f"{prefix}purpose": Purpose.TASK}) & ~Q(**{f"{prefix}item_id__in": withdrawn_item_ids(project=project)})
    if not include_blocked:
        rule &= ~Q(**{f"{prefix}worker_id__in": excluded_worker_ids(project=project)})
    return rule


def counted_as_data(*, project: Project, prefix: str = "") -> Q:
    """``answers_as_data`` that count: submitted or approved."""
    return Q(**{f"{prefix}status__in": Assignment.COUNTED_STATUSES}) & answers_as_data(project=project, prefix=prefix)


def excluded_answer_count(*, project: Project, worker_id: int) -> int:
    """How many of the worker's counted answers in the project would be data but for a block:
    the figure the audit log records when they leave the data and when they come back."""
    return Assignment.objects.filter(
        Q(status__in=Assignment.COUNTED_STATUSES) & answers_as_data(project=project, include_blocked=True),
        project=project, worker_id=worker_id).count()


def data_items(*, project: Project) -> QuerySet[Item]:
    """The project's items that are data: real ones, and gold questions promoted from real items
    (their earlier answers stay data); never an imported gold question, a training item or a
    withdrawn item."""
    return Item.objects.filter(project=project).filter(
        Q(kind=ItemKind.REAL) | (Q(kind=ItemKind.GOLD) & quality_port.promoted_gold()))


def excluded_workers(*, project: Project) -> int:
    """How many workers' answers left the project's data (blocked, while the project leaves them out)."""
    return quality_port.excluded_workers(project=project)


def standings_by_worker(*, project: Project) -> dict[int, str]:
    """Worker id -> their standing in the project, for the workers who have one."""
    return quality_port.standings_by_worker(project=project)
