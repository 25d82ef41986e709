"""What the engine and the analysis read of quality control, through ``annotation.quality_port``
(they lie below it and never import it): the workers' standings in a project and the few
settings of its policy they act on.

Each answer is the one read its callers made themselves before (same queries, same count): the
blocked workers come as subqueries or SQL fragments that the caller puts into its own query.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import Exists, Q, QuerySet

from annotation.models import Project, Standing
from annotation.quality_port import STOPPED
from quality.models import (
    GoldAnswer,
    ItemFlag,
    QualityPolicy,
    QualityRule,
    RuleDecision,
    WorkerStanding,
)

# The project leaves blocked workers' answers out: its option, or the default while it stored none.
EXCLUDING = Q(project__quality__isnull=True) | Q(project__quality__blocked_answers_excluded=True)


def excluded_worker_ids(*, project: Project) -> QuerySet:
    """The ids of the workers whose answers left the project's data (blocked in it, while the
    project leaves blocked workers' answers out), as a subquery."""
    return WorkerStanding.objects.filter(EXCLUDING, project_id=project.pk, state=Standing.BLOCKED).values("worker_id")


def excluded_workers(*, project: Project) -> int:
    """How many workers' answers left the project's data (blocked, while the project leaves them out)."""
    return excluded_worker_ids(project=project).count()


def promoted_gold(*, prefix: str = "") -> Q:
    """Gold questions (reached through ``prefix``) promoted from real items: their earlier answers stay data."""
    return Q(**{f"{prefix}gold_answer__source": GoldAnswer.Source.PROMOTED})


def standings_by_worker(*, project: Project, worker_ids: Any = None) -> dict[int, str]:
    """Worker id -> their standing in the project, for the workers who have one (of ``worker_ids``
    when given)."""
    rows = WorkerStanding.objects.filter(project_id=project.pk)
    if worker_ids is not None:
        rows = rows.filter(worker_id__in=worker_ids)
    return dict(rows.values_list("worker_id", "state"))


def workers_in(*, project_id: int, worker_ids: Any, state: str) -> set[int]:
    """Which of the workers are in ``state`` in the project."""
    return set(WorkerStanding.objects.filter(project_id=project_id, worker_id__in=worker_ids, state=state)
               .values_list("worker_id", flat=True))


def worker_stopped(*, project_id: Any, worker_id: Any) -> Exists:
    """Whether the worker is blocked or screened out in the project, as an expression (the ids
    may be ``OuterRef``), so that the caller reads it in its own query."""
    return Exists(WorkerStanding.objects.filter(project_id=project_id, worker_id=worker_id, state__in=STOPPED))


def worker_blocked(*, project: Project, worker: User) -> bool:
    """Whether the worker is blocked in the project."""
    return WorkerStanding.objects.filter(project=project, worker=worker, state=Standing.BLOCKED).exists()


def standing_shown(*, project: Project, worker: User) -> str:
    """The worker's standing as the project list tells it: before their first item, qualifying
    when the project asks for a qualification (else active); under review, active when the
    project does not pause work for it."""
    state = WorkerStanding.objects.filter(project=project, worker=worker).values_list("state", flat=True).first()
    if state is None:  # before their first item: qualifying when the project asks for it
        qualification = QualityPolicy.objects.filter(project=project, qualification_items__gt=0).exists()
        return Standing.QUALIFYING if qualification else Standing.ACTIVE
    if state == Standing.REVIEW and QualityPolicy.objects.filter(project=project, review_pauses_work=False).exists():
        return Standing.ACTIVE  # at work as before: the project does not pause it
    return state


def gold_rate(*, project: Project) -> float:
    """The share of the worker's items that are gold questions (0 without a policy)."""
    return QualityPolicy.objects.filter(project=project).values_list("gold_rate", flat=True).first() or 0.0


def gold_feedback(*, project_id: int) -> bool:
    """Whether the project shows the expected answer after a gold question."""
    return QualityPolicy.objects.filter(project_id=project_id, gold_feedback=True).exists()


def worker_standings(*, project_id: int, worker_ids: Any) -> dict[int, WorkerStanding]:
    """Worker id -> their standing row in the project (state and gold counts), for those who have one."""
    return {s.worker_id: s for s in WorkerStanding.objects.filter(project_id=project_id, worker_id__in=worker_ids)}


def block_decisions(*, project_id: int, worker_ids: Any) -> dict[int, RuleDecision]:
    """Worker id -> the latest decision of a rule that blocked them in the project."""
    decisions: dict[int, RuleDecision] = {}
    for d in (RuleDecision.objects.filter(project_id=project_id, worker_id__in=worker_ids,
                                          action=QualityRule.Action.BLOCK).order_by("decided_at", "pk")):
        decisions[d.worker_id] = d  # the latest one
    return decisions


def open_flag_count(*, project: Project) -> int:
    """Items with at least one open flag (the flags of a worker whose answers left the data by a
    block are left out with them, as on the flags page)."""
    return (ItemFlag.objects.filter(project=project, resolved_at__isnull=True)
            .exclude(worker_id__in=excluded_worker_ids(project=project)).values("item_id").distinct().count())
