"""Reads for the project's quality-control page: its settings, what checks it holds, where its
workers stand, and what waits for staff."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Sum

from annotation.models import Item, ItemKind, Project, Standing
from annotation.task_types import get_task_type
from annotation.task_types.base import TaskType
from annotation.task_types.gold import GoldPolicy
from quality.models import ItemFlag, QualityPolicy, QualityRule, RuleDecision, WorkerStanding

# Workers listed as waiting for staff, at most.
WAITING_SHOWN = 50


@dataclass(frozen=True)
class QualitySummary:
    items_by_kind: dict[str, int]
    workers_by_state: dict[str, int]
    gold_answered: int
    gold_right: int
    open_flags: int
    rules: int
    enabled_rules: int
    decisions: int
    waiting: list[WorkerStanding] = field(default_factory=list)  # to review or blocked, newest first

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_right / self.gold_answered if self.gold_answered else None


def policy_for(*, project: Project) -> QualityPolicy:
    """The project's quality policy (defaults until someone changes it: no gold, no
    qualification). Not stored until it is saved."""
    found = QualityPolicy.objects.filter(project_id=project.pk).first()
    return found if found is not None else QualityPolicy(project=project)


def settings_not_applying(*, task: TaskType) -> dict[str, str]:
    """The settings a task type never reads, each with why: the set overlap and its pass mark
    score set-valued gold answers only (argument titles, key points), the rubric setting an
    ordinal score only (a rubric score)."""
    kinds = {f.kind for f in task.answer_fields if f.name in task.gold_fields}
    unused: dict[str, str] = {}
    if "choices" not in kinds:
        why = f"does not apply to a {task.name} project: its gold answers are no sets of options"
        unused.update(set_overlap=why, set_pass=why)
    if task.level != "ordinal" or not task.gold_fields:
        unused["rubric"] = f"does not apply to a {task.name} project: its gold answers are no rubric scores"
    return unused


def settings_for(*, project: Project) -> tuple[str, ...]:
    """The settings the project's task type reads, in ``QualityPolicy.SETTINGS`` order: what the page offers and
    the API shows and takes."""
    unused = settings_not_applying(task=get_task_type(project.task_type))
    return tuple(name for name in QualityPolicy.SETTINGS if name not in unused)


def quality_policy_values(*, project: Project) -> dict[str, Any]:
    """The project's quality settings (defaults until changed), by name: those its task type
    reads (``settings_for``)."""
    policy = policy_for(project=project)
    return {name: getattr(policy, name) for name in settings_for(project=project)}


def quality_summary(*, project: Project) -> QualitySummary:
    kinds = dict(Item.objects.filter(project=project).values_list("kind").annotate(n=Count("id")).order_by())
    states = dict(WorkerStanding.objects.filter(project=project).values_list("state").annotate(n=Count("id")).order_by())
    gold = WorkerStanding.objects.filter(project=project).aggregate(answered=Sum("gold_answered"), right=Sum("gold_right"))
    rules = QualityRule.objects.filter(project=project)
    waiting = list(WorkerStanding.objects.filter(project=project, state__in=[Standing.REVIEW, Standing.BLOCKED])
                   .select_related("worker").order_by("-changed_at", "-id")[:WAITING_SHOWN])
    return QualitySummary(
        items_by_kind={kind: kinds.get(kind, 0) for kind in ItemKind.values},
        workers_by_state={state: states.get(state, 0) for state in Standing.values},
        gold_answered=gold["answered"] or 0, gold_right=gold["right"] or 0,
        open_flags=ItemFlag.objects.filter(project=project, resolved_at__isnull=True).count(),
        rules=rules.count(), enabled_rules=rules.filter(enabled=True).count(),
        decisions=RuleDecision.objects.filter(project=project).count(),
        waiting=waiting,
    )


def gold_policy(*, policy: QualityPolicy) -> GoldPolicy:
    return GoldPolicy(set_overlap=policy.set_overlap, set_pass=policy.set_pass,  # type: ignore[arg-type]
                      rubric=policy.rubric)  # type: ignore[arg-type]
