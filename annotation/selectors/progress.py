"""Reads of the crowd workflow: progress of projects and of one worker, and media files. The
staff tables of workers and items are in ``annotation.selectors.staff``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, Q, QuerySet, Sum
from django.utils import timezone

from annotation.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    Consent,
    Item,
    MediaFile,
    Project,
)
from annotation.task_types import get_task_type

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


def open_per_item(*, project: Project) -> dict[int, int]:
    """Open assignments per item of the project (only items that have one): few at any time,
    read through the index on status."""
    return dict(
        Assignment.objects.filter(status=Status.ASSIGNED, project=project)
        .values_list("item_id").annotate(n=Count("pk")).values_list("item_id", "n")
    )


def project_progress(*, project: Project) -> ProjectProgress:
    """Counts of the whole project from the items' slot counters and the few open assignments,
    never from the annotations: one pass over the project's items whatever the number of
    answers (the overview polls this every few seconds).

    An item's counted answers are its slots taken (``n_active``: assigned, submitted, approved)
    less its open assignments, so it is complete when every slot is taken and none is open,
    and untouched when every slot taken is open."""
    open_items = open_per_item(project=project)
    # Counted from the index on (project, n_active, …) that carries the redundancy.
    totals = Item.objects.filter(project=project).aggregate(
        items=Count("n_active"), full=Count("n_active", filter=Q(n_active__gte=F("redundancy"))),
        empty=Count("n_active", filter=Q(n_active=0)), target=Sum("redundancy"), taken=Sum("n_active"),
    )
    held = {pk: (n_active, redundancy) for pk, n_active, redundancy in
            Item.objects.filter(pk__in=list(open_items)).values_list("pk", "n_active", "redundancy")}
    complete, untouched = totals["full"], totals["empty"]
    for pk, (n_active, redundancy) in held.items():
        complete -= n_active >= redundancy  # a slot is open: not complete yet
        untouched += n_active == open_items[pk]  # every slot taken is open: nothing counted
    opened = sum(open_items.values())
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


# --- the annotator's own reads -----------------------------------------------------------------


@dataclass(frozen=True)
class WorkerProgress:
    """How far one worker is in a project: answers that count, and their limit if any."""

    done: int
    quota: int | None

    @property
    def percent(self) -> float | None:
        return round(100.0 * min(self.done, self.quota) / self.quota, 1) if self.quota else None


def worker_progress(*, project: Project, worker: AbstractBaseUser) -> WorkerProgress:
    done = Assignment.objects.filter(
        project=project, worker=worker, status__in=Assignment.COUNTED_STATUSES
    ).count()
    return WorkerProgress(done=done, quota=project.max_items_per_worker)


def project_access(*, project: Project, user: AbstractBaseUser) -> str:
    """``"worker"`` when the user may annotate the project, ``"staff"`` when they may only look
    at it (researchers and admins), ``""`` when it is none of their business."""
    if project.open_to_all or project.members.filter(pk=user.pk).exists():
        return "worker"
    if user.has_perm("annotation.view_project"):
        return "staff"
    return ""


def revision_refusal(assignment: Assignment, *, now: datetime) -> str | None:
    """Why the worker cannot change the answer of ``assignment`` now (in words for them), or
    None when they can: only a submitted answer, not reviewed, within its lease."""
    if assignment.status in (Status.APPROVED, Status.REJECTED) or assignment.reviewed_at is not None:
        return "This answer was already reviewed, so it can no longer be changed."
    if assignment.status != Status.SUBMITTED:
        return "Only a submitted answer can be changed."
    if assignment.expires_at <= now:
        return "The time to change this answer has run out."
    return None


def revisable_annotation(*, project: Project, worker: AbstractBaseUser, now: datetime | None = None) -> Annotation | None:
    """The worker's latest answer in the project, if they may still change it: its lease has not
    run out and nobody reviewed it."""
    now = now or timezone.now()
    latest = (
        Annotation.objects.filter(assignment__project=project, assignment__worker=worker,
                                  assignment__submitted_at__isnull=False)
        .select_related("assignment")
        .order_by("-assignment__submitted_at", "-pk")
        .first()
    )
    if latest is None or revision_refusal(latest.assignment, now=now):
        return None
    return latest


def annotation_history(*, annotation: Annotation) -> list[AnnotationRevision]:
    """Earlier versions of an annotation, oldest first."""
    return list(AnnotationRevision.objects.filter(annotation=annotation).order_by("version"))


def preview_item(*, project: Project) -> Item | None:
    """The item a preview shows: the first one the project hands out in sequential order."""
    return Item.objects.filter(project=project).order_by("position", "pk").first()


def holds_open_assignment(*, project: Project, worker: AbstractBaseUser) -> bool:
    return Assignment.objects.filter(project=project, worker=worker, status=Status.ASSIGNED).exists()


def consent_needed(*, project: Project, worker: AbstractBaseUser) -> bool:
    return not Consent.objects.filter(project=project, worker=worker).exists()


# The session key that marks a marketplace arrival, and for which project.
MARKETPLACE_PROJECT = "marketplace_project"


def consent_pending(*, project: Project, worker: AbstractBaseUser, session) -> bool:
    """A worker who arrived from this project's marketplace link has not yet accepted its
    welcome and consent text: no item for them, on the page or through the API."""
    return session.get(MARKETPLACE_PROJECT) == project.slug and consent_needed(project=project, worker=worker)


# --- media files -------------------------------------------------------------------------------


def media_file_for(*, project: Project, key: str) -> MediaFile | None:
    return MediaFile.objects.filter(project=project, key=key).first()


def media_files_of(*, project: Project) -> QuerySet[MediaFile]:
    return MediaFile.objects.filter(project=project).order_by("key")


def media_keys_missing(*, project: Project, keys: Iterable[str]) -> list[str]:
    """The keys, of those given, that name no media file of the project: once each, in the
    order given (for a task type checking the files its items refer to)."""
    wanted = list(dict.fromkeys(keys))
    found: set[str] = set()
    for start in range(0, len(wanted), 5000):
        chunk = wanted[start:start + 5000]
        found.update(MediaFile.objects.filter(project=project, key__in=chunk).values_list("key", flat=True))
    return [key for key in wanted if key not in found]


def presentation(project: Project, worker: AbstractBaseUser | None) -> dict:
    """The project's options and the worker's variant, for the task type's template."""
    task = get_task_type(project.task_type)
    options = task.clean_options(project.options)
    # A preview (no worker) shows what the first worker would get.
    variant = task.variant(options=options, project_id=project.pk, worker_id=worker.pk if worker else 0)
    # Only the options of the type's form: other records in the options stay with the staff.
    return {"options": {k: options[k] for k in task.option_defaults()}, "variant": variant}
