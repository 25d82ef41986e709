"""Approving and rejecting Prolific submissions from the platform: one or many, by a staff member
or by the study's automatic rules, through Prolific's transition and bulk-approve calls.

What the platform's own review does with it: an approval approves the worker's submitted
assignments (``review.worker_work_approve``); a rejection rejects their counted answers
(``review.worker_work_reject``: the labels leave the data, the slots reopen) and returns their
open assignments to the pool. Each decision goes to the audit log with who made it (nobody: an
automatic rule) and, for a rule's rejection, the rule's evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.services.audit import audit_record
from annotation.services.review import worker_work_approve, worker_work_reject
from recruiting.models import ProlificSubmission
from recruiting.providers.prolific.client import (
    REJECTION_CATEGORIES,
    REJECTION_MESSAGE_MIN,
    prolific_submission_transition,
    prolific_submissions_bulk_approve,
)
from recruiting.providers.prolific.http import MarketplaceError
from recruiting.services.prolific.apply import open_assignments_free

Status = ProlificSubmission.Status
How = ProlificSubmission.DecidedHow


class DecisionRefused(Exception):
    """A decision that cannot be made: ``field`` names the input at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


@dataclass
class DecisionOutcome:
    decided: list[str] = field(default_factory=list)
    # Submission id → why it was not decided.
    refused: dict[str, str] = field(default_factory=dict)


def rejection_check(*, message: str, category: str) -> tuple[str, str]:
    """The message and category of a rejection, as Prolific takes them, or DecisionRefused."""
    message = " ".join(str(message or "").split())
    if category not in REJECTION_CATEGORIES:
        raise DecisionRefused("rejection_category", f"Choose a rejection category: {', '.join(REJECTION_CATEGORIES)}.")
    if len(message) < REJECTION_MESSAGE_MIN:
        raise DecisionRefused("message", f"Prolific needs a message to the participant of at least "
                                         f"{REJECTION_MESSAGE_MIN} characters ({len(message)} given).")
    return message, category


def _marketplace_text(error: MarketplaceError) -> str:
    detail = error.detail
    if isinstance(detail, dict):
        inner = detail.get("error", detail)
        detail = inner.get("detail", inner) if isinstance(inner, dict) else inner
    return f"{error}: {detail}"[:500] if detail else str(error)[:500]


def _record(*, submission: ProlificSubmission, approve: bool, actor: User | None, how: str, now: datetime,
            note: str, details: Mapping[str, Any]) -> None:
    """Store a decision Prolific accepted, and review the worker's work on the platform alike."""
    with transaction.atomic():
        record = ProlificSubmission.objects.select_for_update().get(pk=submission.pk)
        record.status = Status.APPROVED if approve else Status.REJECTED
        record.decided_at, record.decided_how, record.last_error = now, how, ""
        record.decided_by = actor if actor is not None and actor.is_authenticated else None
        if not approve:
            open_assignments_free(submission=record, now=now)
        record.save()
        worker = record.worker
        if worker is not None:
            if approve:
                worker_work_approve(project=record.project, worker=worker, note=note, reviewer=actor)
            else:
                worker_work_reject(project=record.project, worker=worker, note=note, reviewer=actor)
        audit_record(actor=actor, action="prolific_approve" if approve else "prolific_reject", project=record.project,
                     target=f"submission {record.submission_id}",
                     details={"participant": record.participant_id, "worker": record.worker_id, "how": how, **details})
    submission.refresh_from_db()


def _refuse_undecidable(submission: ProlificSubmission) -> None:
    if submission.status != Status.AWAITING_REVIEW:
        raise DecisionRefused("status", f"Only submissions awaiting review can be approved or rejected; "
                                        f"{submission.submission_id} is {submission.get_status_display().lower()}.")


def _failed(submission: ProlificSubmission, error: MarketplaceError) -> DecisionRefused:
    text = _marketplace_text(error)
    ProlificSubmission.objects.filter(pk=submission.pk).update(last_error=text)
    return DecisionRefused("prolific", f"Prolific refused the decision on {submission.submission_id}: {text}")


def prolific_submission_decide(*, submission: ProlificSubmission, approve: bool, actor: User | None,
                               message: str = "", rejection_category: str = "", how: str = How.STAFF,
                               evidence: Mapping[str, Any] | None = None) -> ProlificSubmission:
    """Approve or reject one submission awaiting review on Prolific, then on the platform.
    Raises DecisionRefused naming the field at fault, or saying what Prolific answered."""
    _refuse_undecidable(submission)
    details: dict[str, Any] = {}
    if not approve:
        message, rejection_category = rejection_check(message=message, category=rejection_category)
        details = {"rejection_category": rejection_category, "message": message}
    if evidence is not None:
        details["evidence"] = dict(evidence)
    try:
        prolific_submission_transition(submission_id=submission.submission_id, action="APPROVE" if approve else "REJECT",
                                       message=message, rejection_category=rejection_category)
    except MarketplaceError as error:
        raise _failed(submission, error) from None
    note = "Approved on Prolific." if approve else f"Rejected on Prolific ({rejection_category}): {message}"
    _record(submission=submission, approve=approve, actor=actor, how=how, now=timezone.now(), note=note,
            details=details)
    return submission


def prolific_submissions_approve(*, submissions: Iterable[ProlificSubmission], actor: User | None,
                                 how: str = How.STAFF) -> DecisionOutcome:
    """Approve many submissions with one bulk-approve call; those not awaiting review are
    counted as refused with the reason."""
    outcome = DecisionOutcome()
    ready = []
    for s in submissions:
        if s.status == Status.AWAITING_REVIEW:
            ready.append(s)
        else:
            outcome.refused[s.submission_id] = f"it is {s.get_status_display().lower()}"
    if not ready:
        return outcome
    try:
        prolific_submissions_bulk_approve(submission_ids=[s.submission_id for s in ready])
    except MarketplaceError as error:
        text = _marketplace_text(error)
        ProlificSubmission.objects.filter(pk__in=[s.pk for s in ready]).update(last_error=text)
        raise DecisionRefused("prolific", f"Prolific refused the bulk approval: {text}") from None
    now = timezone.now()
    for s in ready:
        _record(submission=s, approve=True, actor=actor, how=how, now=now, note="Approved on Prolific.",
                details={"bulk": len(ready)})
        outcome.decided.append(s.submission_id)
    return outcome


def prolific_submissions_reject(*, submissions: Iterable[ProlificSubmission], actor: User | None, message: str,
                                rejection_category: str) -> DecisionOutcome:
    """Reject many submissions, one transition each (Prolific has no bulk rejection)."""
    message, rejection_category = rejection_check(message=message, category=rejection_category)
    outcome = DecisionOutcome()
    for s in submissions:
        try:
            prolific_submission_decide(submission=s, approve=False, actor=actor, message=message,
                                       rejection_category=rejection_category)
        except DecisionRefused as refused:
            outcome.refused[s.submission_id] = refused.message
        else:
            outcome.decided.append(s.submission_id)
    return outcome
