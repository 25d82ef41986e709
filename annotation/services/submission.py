"""Submitting answers: validated, stored once (a repeat returns the first), counted or not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from annotation.models import Annotation, Assignment, Item, WorkerProfile
from annotation.services.bonuses import bonus_grant_new
from annotation.services.engine import set_status
from annotation.services.errors import NotYours, WorkflowError
from annotation.storable import field_problems, scrubbed
from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerContext, AnswerInvalid, TaskType

Status = Assignment.Status


@dataclass(frozen=True)
class SubmitResult:
    annotation: Annotation
    # Read with its item and project.
    assignment: Assignment
    created: bool
    # False when the lease had expired and the item was completed by others meanwhile: the answer
    # is kept but does not count toward the item's N.
    counted: bool


def _seconds(client_ms: Any, *, assigned_at: datetime, now: datetime) -> float:
    server = max((now - assigned_at).total_seconds(), 0.0)
    try:
        client = float(client_ms) / 1000.0
    except (TypeError, ValueError, OverflowError):
        return round(server, 3)
    # The client's clock counts visible time only; never trust it beyond what the server saw.
    if not 0 <= client <= server + 5:
        return round(server, 3)
    return round(client, 3)


def answer_context(task: TaskType, assignment: Assignment, *, revising: bool = False) -> AnswerContext:
    """The project's options and the worker's variant, as the task type validates with them."""
    options = task.clean_options(assignment.project.options)
    variant = task.variant(options=options, project_id=assignment.project_id, worker_id=assignment.worker_id)
    return AnswerContext(options=options, variant=variant, revising=revising)


def annotation_submit(
    *,
    assignment: Assignment,
    worker: AbstractBaseUser,
    data: Mapping[str, Any],
    client: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> SubmitResult:
    """Validate and store an answer. Idempotent: a repeated submission returns the first one.

    Only ``assignment.pk`` is read: the row is read again under a lock (``Assignment(pk=…)``
    will do). Raises ``Assignment.DoesNotExist`` for an unknown one, ``NotYours`` for another
    worker's."""
    now = now or timezone.now()
    with transaction.atomic():
        # One statement reads the assignment (locked: only its own row, so that answers to other
        # items of the project never wait on each other), its item and project, any answer
        # already stored and whether the worker is blocked.
        a = (Assignment.objects.select_for_update(of=("self",))
             .select_related("item", "project", "annotation")
             .annotate(worker_blocked=Exists(WorkerProfile.objects.filter(user=OuterRef("worker_id"), blocked=True)))
             .get(pk=assignment.pk))
        if a.worker_id != worker.pk:
            raise NotYours("This assignment belongs to someone else.")
        existing = getattr(a, "annotation", None)
        if existing is not None:
            return SubmitResult(existing, a, created=False, counted=a.status in Assignment.COUNTED_STATUSES)
        if a.status == Status.RETURNED:
            raise WorkflowError("You skipped this item, so it can no longer be answered.")
        if a.worker_blocked:
            raise WorkflowError("Your account is blocked; submissions are not accepted.")
        task = get_task_type(a.project.task_type)
        clean = task.clean_answer(data, payload=a.item.payload, context=answer_context(task, a))
        # What is stored obeys one rule on both databases (annotation.storable): an answer that
        # breaks it is refused naming the field; client details are our own record, so cleaned.
        problems = field_problems({**clean.answer, "reason": clean.reason, **clean.metrics})
        if problems:
            raise AnswerInvalid(problems)
        client = scrubbed(dict(client or {}))
        if clean.metrics:
            client["metrics"] = clean.metrics
        seconds = _seconds(client.pop("elapsed_ms", None), assigned_at=a.assigned_at, now=now)
        counted = True
        if a.status == Status.ASSIGNED:
            set_status([a], Status.SUBMITTED, now=now, submitted_at=now)
        elif a.status == Status.EXPIRED:
            # A late answer still counts if a slot is free; otherwise it is kept but not counted.
            took = Item.objects.filter(pk=a.item_id, n_active__lt=F("redundancy")).update(n_active=F("n_active") + 1)
            if took:
                Assignment.objects.filter(pk=a.pk).update(status=Status.SUBMITTED, submitted_at=now)
                a.status, a.submitted_at = Status.SUBMITTED, now
            else:
                Assignment.objects.filter(pk=a.pk).update(submitted_at=now)
                counted = False
        else:
            raise WorkflowError(f"This assignment is {a.status} and takes no answer.")
        annotation = Annotation.objects.create(
            assignment=a, answer=clean.answer, reason=clean.reason, seconds=seconds, client=client
        )
        # In the same transaction: an answer is never stored without the bonus it earned.
        if counted:
            bonus_grant_new(annotation=annotation, assignment=a, task=task)
    return SubmitResult(annotation, a, created=True, counted=counted)
