"""Writes: a worker changes an answer they already submitted, while its lease lasts.

The current version stays in ``Annotation`` (what exports and analysis read); the version it
replaces is copied to ``AnnotationRevision`` in the same transaction, so no answer is ever lost.
Like submitting, changing is idempotent (a repeat with the same answer changes nothing) and
race-safe (the assignment row is locked, as submit and review lock it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.ledger_port import answer_counts_again, answer_uncounted
from annotation.models import Annotation, AnnotationRevision, Assignment
from annotation.selectors.answers import revision_refusal
from annotation.services.errors import WorkflowError
from annotation.services.submission import answer_context, answer_seconds
from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerInvalid
from annotation.value_checks import field_problems


@dataclass(frozen=True)
class ReviseResult:
    annotation: Annotation
    # False when the answer sent equals the stored one (a double click, a replay): nothing written.
    changed: bool


def annotation_revise(
    *,
    assignment: Assignment,
    worker: User,
    data: Mapping[str, Any],
    client: Mapping[str, Any] | None = None,
    version: int | None = None,
    now: datetime | None = None,
) -> ReviseResult:
    """Replace the answer of a submitted assignment, keeping the replaced version.

    ``version`` is the version the worker was editing: if the answer changed meanwhile (another
    window, another device), a different answer is refused instead of silently overwriting it.

    The time of a change is the server's, as for a submit: from when the version it replaces was
    stored to when the change arrived. The server records no moment at which the change form was
    opened (the page and ``GET`` of the answer write nothing, and a form may stay open in several
    windows), so this is the one span it saw; it includes whatever the worker did in between,
    the next item too. It is added to the annotation's ``seconds``, which so stays the server's
    time from the lease's start to the current version's arrival. The client's own count of the
    change (``elapsed_ms``) is added to ``client_seconds`` the same way, as evidence only; when
    either count is missing the sum is unknown (None). The replaced version keeps both of its
    figures in its ``AnnotationRevision``.
    """
    now = now or timezone.now()
    with transaction.atomic():
        a = Assignment.objects.select_for_update().select_related("item", "project").get(pk=assignment.pk)
        if a.worker_id != worker.pk:
            raise WorkflowError("This assignment belongs to someone else.")
        current = Annotation.objects.select_for_update().filter(assignment=a).first()
        if current is None:
            raise WorkflowError("This item has no answer yet to change.")
        refusal = revision_refusal(assignment=a, now=now)
        try:
            task = get_task_type(a.project.task_type)
            clean = task.clean_answer(data, payload=a.item.payload,
                                      context=answer_context(task=task, assignment=a, revising=True))
        except AnswerInvalid:
            # Fixing the fields would not help when the answer cannot be changed at all.
            if refusal:
                raise WorkflowError(refusal) from None
            raise
        problems = field_problems({**clean.answer, "reason": clean.reason})
        if problems:
            raise AnswerInvalid(problems)
        if clean.answer == current.answer and clean.reason == current.reason:
            return ReviseResult(current, changed=False)
        if refusal:
            raise WorkflowError(refusal)
        if version is not None and version != current.version:
            raise WorkflowError(
                "This answer was changed meanwhile in another window; open it again to see the latest version."
            )
        AnnotationRevision.objects.create(
            annotation=current, version=current.version, answer=current.answer, reason=current.reason,
            seconds=current.seconds, client_seconds=current.client_seconds, client=current.client,
            saved_at=current.saved_at, replaced_at=now,
        )
        client = dict(client or {})
        # Metrics of how the item was first taken in (e.g. playback) stay with the answer.
        metrics = {**current.client.get("metrics", {}), **clean.metrics}
        if metrics:
            client["metrics"] = metrics
        spent, client_spent = answer_seconds(client_ms=client.pop("elapsed_ms", None), since=current.saved_at,
                                             now=now)
        current.answer, current.reason = clean.answer, clean.reason
        current.seconds = round((current.seconds or 0.0) + spent, 3)
        current.client_seconds = None if client_spent is None or current.client_seconds is None \
            else round(current.client_seconds + client_spent, 3)
        current.client = client
        current.version += 1
        current.revised_at = now
        current.save(update_fields=["answer", "reason", "seconds", "client_seconds", "client", "version",
                                    "revised_at"])
        # The bonus follows the answer the worker now gives, not the one they replaced.
        answer_uncounted(assignment=a)
        answer_counts_again(annotation=current)
    return ReviseResult(current, changed=True)
