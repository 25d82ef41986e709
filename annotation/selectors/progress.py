"""Reads of the crowd workflow's progress: of a project, and of one worker in it. The staff
tables of workers and items are in ``annotation.selectors.staff``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Count, F, Q, QuerySet, Sum, Value

import annotation.quality_port as quality_port
from annotation.models import Assignment, Item, ItemKind, Project, Purpose, Standing

Status = Assignment.Status
COUNTED = Q(assignments__status__in=Assignment.COUNTED_STATUSES)
# Items that are not the project's data: gold questions and training items (answered by any
# number of workers) and withdrawn items. Progress leaves them out.
NOT_DATA_KINDS = (ItemKind.GOLD, ItemKind.TRAINING, ItemKind.WITHDRAWN)


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


def open_per_item(*, project: Project) -> dict[int, int]:
    """Open assignments per item of the project (only items that have one): few at any time,
    read through the index on status."""
    return dict(
        Assignment.objects.filter(status=Status.ASSIGNED, project=project, purpose=Purpose.TASK)
        .values_list("item_id").annotate(n=Count("pk")).values_list("item_id", "n")
    )


def project_progress(*, project: Project) -> ProjectProgress:
    """Counts of the whole project from the items' slot counters and the few open assignments,
    never from the annotations: one pass over the project's items whatever the number of
    answers (the overview polls this every few seconds).

    An item's counted answers are its slots taken (``n_active``: assigned, submitted, approved)
    less its open assignments, so it is complete when every slot is taken and none is open,
    and untouched when every slot taken is open.

    Only real items count: gold questions, training items and withdrawn ones are counted apart
    (few, through the index on the items' kind) and taken off the whole project's figures, so
    that the count of every item still reads the index that carries the redundancy alone."""
    open_items = open_per_item(project=project)
    figures = {
        "items": Count("n_active"), "full": Count("n_active", filter=Q(n_active__gte=F("redundancy"))),
        "empty": Count("n_active", filter=Q(n_active=0)), "target": Sum("redundancy"), "taken": Sum("n_active"),
    }
    # Counted from the index on (project, n_active, …) that carries the redundancy, and the few
    # other items through the index on their kind: one round trip for both.
    every = Item.objects.filter(project=project).values("project").annotate(part=Value(0), **figures)
    others = (Item.objects.filter(project=project, kind__in=NOT_DATA_KINDS).values("project")
              .annotate(part=Value(1), **figures))
    rows: dict[int, dict[str, Any]] = {row["part"]: dict(row)
                                       for row in every.order_by().union(others.order_by(), all=True)}
    totals = {key: int(rows.get(0, {}).get(key) or 0) - int(rows.get(1, {}).get(key) or 0) for key in figures}
    held = {pk: (n_active, redundancy) for pk, n_active, redundancy in
            Item.objects.filter(pk__in=list(open_items), kind=ItemKind.REAL)
            .values_list("pk", "n_active", "redundancy")}
    open_items = {pk: n for pk, n in open_items.items() if pk in held}
    complete, untouched = totals["full"], totals["empty"]
    for pk, (n_active, redundancy) in held.items():
        complete -= n_active >= redundancy  # a slot is open: not complete yet
        untouched += n_active == open_items[pk]  # every slot taken is open: nothing counted
    opened = sum(open_items[pk] for pk in held)
    return ProjectProgress(
        items=totals["items"],
        complete=complete,
        partial=totals["items"] - complete - untouched,
        untouched=untouched,
        submitted=(totals["taken"] or 0) - opened,
        target=totals["target"] or 0,
        open=opened,
    )


@dataclass(frozen=True)
class WorkerStatus:
    """One annotator's own standing in a project."""

    project: Project
    done: int
    quota: int | None
    # The project's progress; None when the project mixes in gold questions (see worker_status).
    progress: ProjectProgress | None
    # Their standing (quality control's ``Standing``): qualifying, active, review, blocked, screened_out.
    standing: str = Standing.ACTIVE

    @property
    def standing_note(self) -> str:
        """What the project list says of a worker who is not simply at work."""
        return STANDING_NOTES.get(self.standing, "")

    @property
    def remaining_quota(self) -> int | None:
        return None if self.quota is None else max(self.quota - self.done, 0)


STANDING_NOTES: dict[str, str] = {
    Standing.QUALIFYING: "Qualification first: a few items with known answers before the real ones.",
    Standing.BLOCKED: "Blocked: you can no longer take items in this project.",
    # Shown only while the project pauses work under review (``QualityPolicy.review_pauses_work``).
    Standing.REVIEW: "Paused: the researchers are reviewing your answers before you take more items.",
    Standing.SCREENED_OUT: "Screened out: you did not qualify for this project.",
}


def worker_status(*, project: Project, worker: User) -> WorkerStatus:
    # Training answers are the qualification's, not items of the project (the quota leaves them out too).
    done = Assignment.objects.filter(
        project=project, worker=worker, status__in=Assignment.COUNTED_STATUSES
    ).exclude(purpose=Purpose.TRAINING).count()
    # Qualifying before their first item when the project asks for it; under review, active
    # when the project does not pause work for it.
    state = quality_port.standing_shown(project=project, worker=worker)
    # With gold questions mixed in, the project's answers are not shown to workers: a gold
    # answer leaves them as they are, so watching them would tell which items were gold.
    shows_project = not Item.objects.filter(project=project, kind=ItemKind.GOLD).exists()
    return WorkerStatus(project=project, done=done, quota=project.max_items_per_worker,
                        progress=project_progress(project=project) if shows_project else None, standing=state)


def projects_for_worker(*, worker: User) -> QuerySet[Project]:
    """Active projects an annotator may work on."""
    return (
        Project.objects.filter(state=Project.State.ACTIVE)
        .filter(Q(open_to_all=True) | Q(members=worker))
        .distinct()
        .order_by("name")
    )


@dataclass(frozen=True)
class WorkerProgress:
    """How far one worker is in a project: answers that count, their limit if any, and the
    items open to them: the ones answered, the one held and the ones they may still get (a free
    slot, never theirs), no more than the limit. ``open_to_worker`` is 0 when not counted."""

    done: int
    quota: int | None
    open_to_worker: int = 0

    @property
    def percent(self) -> float | None:
        return round(100.0 * min(self.done, self.quota) / self.quota, 1) if self.quota else None

    @property
    def position(self) -> int:
        """The number of the item the worker holds among those open to them."""
        return self.done + 1


def worker_progress(*, project: Project, worker: User, holding: bool = False) -> WorkerProgress:
    """The worker's progress; with ``holding`` (they hold an item now), also how many items are
    open to them, which takes one more count of the project's items with a free slot."""
    # Training answers are the qualification's, not items of the project (the quota leaves them out too).
    done = Assignment.objects.filter(
        project=project, worker=worker, status__in=Assignment.COUNTED_STATUSES
    ).exclude(purpose=Purpose.TRAINING).count()
    if not holding:
        return WorkerProgress(done=done, quota=project.max_items_per_worker)
    seen = Assignment.objects.filter(project=project, worker=worker).values("item_id")
    free = (Item.objects.filter(project=project, kind=ItemKind.REAL, n_active__lt=F("redundancy"))
            .exclude(pk__in=seen).count())
    # Gold questions come among the real items at the project's rate and stop with them: the
    # count open to the worker grows by their expected share (so a gold question looks like any
    # item, and the count does not promise gold questions once the real items are done).
    rate = quality_port.gold_rate(project=project)
    total = done + 1 + round(free / (1 - rate))
    if project.max_items_per_worker is not None:
        total = min(total, project.max_items_per_worker)
    return WorkerProgress(done=done, quota=project.max_items_per_worker, open_to_worker=total)
