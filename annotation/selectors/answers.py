"""Reads of a worker's answers: the latest one, whether it may still be changed, its history."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.utils import timezone

from annotation.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    Project,
    Purpose,
)
from annotation.quality_port import gold_feedback

Status = Assignment.Status


def previous_answer(*, project: Project, worker: User) -> tuple[dict, dict] | None:
    """(payload, answer) of the worker's latest annotation in the project."""
    last = (
        Annotation.objects.filter(assignment__project=project, assignment__worker=worker)
        .select_related("assignment__item")
        .order_by("-created_at", "-pk")
        .first()
    )
    return (last.assignment.item.payload, last.answer) if last else None


def revision_refusal(*, assignment: Assignment, now: datetime) -> str | None:
    """Why the worker cannot change the answer of ``assignment`` now (in words for them), or
    None when they can: only a submitted answer, not reviewed, within its lease."""
    if assignment.status in (Status.APPROVED, Status.REJECTED) or assignment.reviewed_at is not None:
        return "This answer was already reviewed, so it can no longer be changed."
    if assignment.status != Status.SUBMITTED:
        return "Only a submitted answer can be changed."
    if assignment.expires_at <= now:
        return "The time to change this answer has run out."
    if assignment.purpose != Purpose.TASK and _expected_was_shown(assignment):
        # Changed after the expected answer was shown, it would say nothing of the worker.
        return "This answer cannot be changed: its expected answer was shown to you."
    return None


def _expected_was_shown(assignment: Assignment) -> bool:
    """Whether the worker was shown the expected answer after answering: always for a training
    item, for a gold question when the project gives gold feedback. Without feedback a gold
    answer may be changed like any other (else the missing link would give it away); its score
    stays the one of the first answer."""
    if assignment.purpose == Purpose.TRAINING:
        return True
    return gold_feedback(project_id=assignment.project_id)


def revisable_annotation(*, project: Project, worker: User, now: datetime | None = None) -> Annotation | None:
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
    if latest is None or revision_refusal(assignment=latest.assignment, now=now):
        return None
    return latest


def annotation_history(*, annotation: Annotation) -> list[AnnotationRevision]:
    """Earlier versions of an annotation, oldest first."""
    return list(AnnotationRevision.objects.filter(annotation=annotation).order_by("version"))
