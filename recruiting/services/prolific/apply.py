"""Applying what Prolific says of one submission, the same way whether a poll read it or a
webhook brought it: the submission record is made or updated, matched to the participant's
account (``WorkerProfile`` source "prolific"), and its status acted on.

- RETURNED, TIMED-OUT or REJECTED: the participant's open assignments in the project go back
  to the pool at once (their submitted answers stay), and the engine hands them no new item
  (``recruiting.selectors.prolific.withdrawn_from_study``).
- APPROVED: their submitted assignments are approved on the platform too (``review.py``).
- A status never moves back from a final one to an earlier one (a poll read before a webhook).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotation.models import Assignment, WorkerProfile
from annotation.services.audit import audit_record
from annotation.services.engine import set_status
from annotation.services.review import worker_work_approve
from recruiting.models import ProlificStudy, ProlificSubmission

Status = ProlificSubmission.Status
PROLIFIC_SOURCE = "prolific"


class SubmissionUnreadable(ValueError):
    """What Prolific sent does not describe a submission (no id, no participant)."""


def status_clean(*, value: Any) -> str:
    """Prolific's status in the form the record keeps: "AWAITING_REVIEW" and "awaiting review"
    are "AWAITING REVIEW"; anything unknown is "UNKNOWN"."""
    text = " ".join(str(value or "").strip().upper().replace("_", " ").split())
    if text in ("TIMED OUT", "TIMED-OUT"):
        return Status.TIMED_OUT
    return text if text in Status.values else Status.UNKNOWN


def _when(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = parse_datetime(value)
    except ValueError:
        return None
    if parsed is not None and timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed, UTC)
    return parsed


def _text(row: Mapping[str, Any], *names: str) -> str:
    for name in names:
        value = row.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()[:100]
    return ""


def participant_account(*, participant_id: str) -> User | None:
    profile = (WorkerProfile.objects.select_related("user")
               .filter(source=PROLIFIC_SOURCE, external_id=participant_id).first())
    return profile.user if profile else None


def open_assignments_free(*, submission: ProlificSubmission, now: datetime) -> int:
    """Return the participant's open assignments in the project to the pool (once)."""
    if submission.worker_id is None or submission.freed_at is not None:
        return 0
    open_ones = list(Assignment.objects.select_for_update()
                     .filter(project_id=submission.project_id, worker_id=submission.worker_id,
                             status=Assignment.Status.ASSIGNED).order_by("pk"))
    freed = set_status(assignments=open_ones, new=Assignment.Status.RETURNED, now=now)
    submission.freed_at, submission.freed_assignments = now, freed
    audit_record(actor=None, action="prolific_freed", project=submission.project,
                 target=f"submission {submission.submission_id}",
                 details={"status": submission.status, "worker": submission.worker_id, "returned_items": freed})
    return freed


def prolific_submission_apply(*, study: ProlificStudy, row: Mapping[str, Any], now: datetime | None = None,
                              source: str = "poll") -> ProlificSubmission:
    """Make or update the record of the submission ``row`` describes (as Prolific's API shapes
    it) and act on its status. Raises SubmissionUnreadable for a row without an id."""
    now = now or timezone.now()
    submission_id = _text(row, "id", "submission_id", "resource_id")
    if not submission_id:
        raise SubmissionUnreadable("the submission has no id")
    participant_id = _text(row, "participant_id", "participant")
    status = status_clean(value=row.get("status"))
    with transaction.atomic():
        record = ProlificSubmission.objects.select_for_update().filter(submission_id=submission_id).first()
        if record is None:
            if not participant_id:
                raise SubmissionUnreadable(f"submission {submission_id} names no participant")
            record = ProlificSubmission.objects.create(
                study=study, project_id=study.project_id, submission_id=submission_id,
                participant_id=participant_id, status=status, seen_at=now)
            before = ""
        else:
            before = record.status
            if before in ProlificSubmission.FINAL and status not in ProlificSubmission.FINAL:
                status = before  # an older view of the submission: keep what is known
        record.status, record.seen_at = status, now
        record.started_at = _when(row.get("started_at")) or record.started_at
        record.completed_at = _when(row.get("completed_at")) or record.completed_at
        if record.worker_id is None:
            account = participant_account(participant_id=record.participant_id)
            record.worker_id = account.pk if account is not None else None
        if status != before and status in (Status.APPROVED, Status.REJECTED) and not record.decided_how:
            record.decided_how, record.decided_at = ProlificSubmission.DecidedHow.PROLIFIC, now
        if status in ProlificSubmission.ENDED:
            open_assignments_free(submission=record, now=now)
        record.save()
        if status == Status.APPROVED and before != Status.APPROVED and record.worker is not None:
            worker_work_approve(project=record.project, worker=record.worker,
                                note=f"Approved on Prolific (submission {submission_id}).", reviewer=None)
    return record
