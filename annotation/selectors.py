"""Reads of the crowd workflow: progress of projects, items and workers."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, Max, Q, QuerySet

from annotation.models import Annotation, Assignment, Item, Project

Status = Assignment.Status
COUNTED = Q(assignments__status__in=Assignment.COUNTED_STATUSES)


@dataclass(frozen=True)
class ProjectProgress:
    items: int
    complete: int
    partial: int
    untouched: int
    submitted: int
    target: int
    open: int

    @property
    def percent(self) -> float:
        return round(100.0 * self.submitted / self.target, 1) if self.target else 0.0


def project_progress(*, project: Project) -> ProjectProgress:
    per_item = Item.objects.filter(project=project).annotate(done=Count("assignments", filter=COUNTED))
    totals = per_item.aggregate(
        items=Count("pk"),
        complete=Count("pk", filter=Q(done__gte=F("redundancy"))),
        untouched=Count("pk", filter=Q(done=0)),
    )
    target = sum(Item.objects.filter(project=project).values_list("redundancy", flat=True))
    counts = dict(
        Assignment.objects.filter(project=project).values_list("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    submitted = counts.get(Status.SUBMITTED, 0) + counts.get(Status.APPROVED, 0)
    return ProjectProgress(
        items=totals["items"],
        complete=totals["complete"],
        partial=totals["items"] - totals["complete"] - totals["untouched"],
        untouched=totals["untouched"],
        submitted=submitted,
        target=target,
        open=counts.get(Status.ASSIGNED, 0),
    )


def items_progress(*, project: Project) -> QuerySet[Item]:
    """Items with their counts of counted, open, expired and returned assignments."""
    return (
        Item.objects.filter(project=project)
        .annotate(
            done=Count("assignments", filter=COUNTED),
            open=Count("assignments", filter=Q(assignments__status=Status.ASSIGNED)),
            expired=Count("assignments", filter=Q(assignments__status=Status.EXPIRED)),
            returned=Count("assignments", filter=Q(assignments__status=Status.RETURNED)),
            rejected=Count("assignments", filter=Q(assignments__status=Status.REJECTED)),
            last_at=Max("assignments__submitted_at"),
        )
        .order_by("position", "pk")
    )


@dataclass(frozen=True)
class WorkerRow:
    worker_id: int
    username: str
    source: str
    blocked: bool
    submitted: int
    open: int
    expired: int
    returned: int
    rejected: int
    median_seconds: float | None
    last_at: object


def workers_progress(*, project: Project) -> list[WorkerRow]:
    """One row per worker who ever held an assignment in the project, most productive first."""
    users = (
        get_user_model().objects.filter(assignments__project=project)
        .annotate(
            submitted=Count("assignments", filter=Q(assignments__project=project, assignments__status__in=Assignment.COUNTED_STATUSES)),
            open=Count("assignments", filter=Q(assignments__project=project, assignments__status=Status.ASSIGNED)),
            expired=Count("assignments", filter=Q(assignments__project=project, assignments__status=Status.EXPIRED)),
            returned=Count("assignments", filter=Q(assignments__project=project, assignments__status=Status.RETURNED)),
            rejected=Count("assignments", filter=Q(assignments__project=project, assignments__status=Status.REJECTED)),
            last_at=Max("assignments__submitted_at", filter=Q(assignments__project=project)),
        )
        .select_related("profile")
        .order_by("-submitted", "username")
    )
    seconds: dict[int, list[float]] = defaultdict(list)
    for worker_id, value in Annotation.objects.filter(
        assignment__project=project, assignment__status__in=Assignment.COUNTED_STATUSES, seconds__isnull=False
    ).values_list("assignment__worker_id", "seconds"):
        seconds[worker_id].append(value)
    rows = []
    for u in users:
        profile = getattr(u, "profile", None)
        rows.append(WorkerRow(
            worker_id=u.pk, username=u.get_username(), source=profile.source if profile else "",
            blocked=bool(profile and profile.blocked), submitted=u.submitted, open=u.open,
            expired=u.expired, returned=u.returned, rejected=u.rejected,
            median_seconds=round(statistics.median(seconds[u.pk]), 1) if seconds[u.pk] else None,
            last_at=u.last_at,
        ))
    return rows


@dataclass(frozen=True)
class WorkerStatus:
    """One annotator's own standing in a project."""

    project: Project
    done: int
    quota: int | None
    progress: ProjectProgress

    @property
    def remaining_quota(self) -> int | None:
        return None if self.quota is None else max(self.quota - self.done, 0)


def worker_status(*, project: Project, worker: AbstractBaseUser) -> WorkerStatus:
    done = Assignment.objects.filter(
        project=project, worker=worker, status__in=Assignment.COUNTED_STATUSES
    ).count()
    return WorkerStatus(project=project, done=done, quota=project.max_items_per_worker,
                        progress=project_progress(project=project))


def projects_for_worker(*, worker: AbstractBaseUser) -> QuerySet[Project]:
    """Active projects an annotator may work on."""
    return (
        Project.objects.filter(state=Project.State.ACTIVE)
        .filter(Q(open_to_all=True) | Q(members=worker))
        .distinct()
        .order_by("name")
    )


def previous_answer(*, project: Project, worker: AbstractBaseUser) -> tuple[dict, dict] | None:
    """(payload, answer) of the worker's latest annotation in the project."""
    last = (
        Annotation.objects.filter(assignment__project=project, assignment__worker=worker)
        .select_related("assignment__item")
        .order_by("-created_at", "-pk")
        .first()
    )
    return (last.assignment.item.payload, last.answer) if last else None
