"""Reads of the crowd workflow: progress of projects and of one worker. The staff tables of
workers and items are in ``annotation.selectors_staff``."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, Q, QuerySet, Sum

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
    """Counts of the whole project, each aggregated in the database (two queries whatever the
    size: the overview polls this every few seconds)."""
    per_item = Item.objects.filter(project=project).annotate(done=Count("assignments", filter=COUNTED))
    totals = per_item.aggregate(
        items=Count("pk"),
        complete=Count("pk", filter=Q(done__gte=F("redundancy"))),
        untouched=Count("pk", filter=Q(done=0)),
        target=Sum("redundancy"),
    )
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
        target=totals["target"] or 0,
        open=counts.get(Status.ASSIGNED, 0),
    )


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
