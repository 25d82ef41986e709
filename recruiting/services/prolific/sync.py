"""Polling a linked study's submissions: a background job per study (``ProlificSyncJob``), run
through the one job lifecycle (``jobs.services.job_execute``), never inside a web request.

The scheduler (celery beat, ``annotation.prolific_poll`` every PROLIFIC_POLL_TICK_SECONDS)
queues a job for every study whose ``poll_seconds`` have passed since its last poll and that
has no job queued or running; "Sync now" queues one at once. A job reads every submission,
applies each (``prolific_apply``), then sends screen-outs not yet sent and makes the study's
automatic decisions (``prolific_auto``). Prolific's refusals (a wrong token, an outage, a
timeout) fail the job with a message that says which and what to do.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from jobs.live import Attempt
from jobs.models import Job
from jobs.services import JobFailed, JobOutcome, job_execute
from recruiting.models import ProlificStudy, ProlificSyncJob
from recruiting.providers.prolific.client import prolific_submissions_list
from recruiting.providers.prolific.http import MarketplaceError
from recruiting.services.prolific.apply import SubmissionUnreadable, prolific_submission_apply
from recruiting.services.prolific.auto import prolific_auto_apply
from recruiting.services.prolific.queue import SYNC_TASK, prolific_sync_queue

__all__ = ["SYNC_TASK", "prolific_polls_due", "prolific_submissions_sync", "prolific_sync_job_execute",
           "prolific_sync_queue"]


def marketplace_failure(*, error: MarketplaceError) -> str:
    """A job's error for a refused or unanswered call: what happened and what to do."""
    if error.status in (401, 403):
        return (f"Prolific refused the API token ({error.status}). Check PROLIFIC_API_TOKEN: it must be a token of "
                "the workspace that owns the study.")
    if error.status == 404:
        return "Prolific does not know this study id (404). Check the study id on the Prolific page of the project."
    if error.status is None:
        return f"Prolific could not be reached ({error}). The next poll tries again."
    if error.status >= 500:
        return f"Prolific answered with an error of its own ({error.status}). The next poll tries again."
    return f"Prolific refused a call ({error.status}): {error.detail or error}"


def prolific_submissions_sync(*, study: ProlificStudy, now: datetime | None = None,
                              attempt: Attempt | None = None) -> dict[str, Any]:
    """Read the study's submissions from Prolific and apply them; returns what was done.
    Raises MarketplaceError when the list cannot be read (nothing was applied then)."""
    now = now or timezone.now()
    ProlificStudy.objects.filter(pk=study.pk).update(last_polled_at=now)
    study.last_polled_at = now
    if attempt is not None:
        attempt.progress(0.1, "reading the study's submissions")
    rows = list(prolific_submissions_list(study_id=study.study_id))
    by_status: dict[str, int] = {}
    unreadable = 0
    for n, row in enumerate(rows, start=1):
        try:
            record = prolific_submission_apply(study=study, row=row, now=now)
        except SubmissionUnreadable:
            unreadable += 1
            continue
        by_status[record.status] = by_status.get(record.status, 0) + 1
        if attempt is not None and n % 50 == 0:
            attempt.progress(0.1 + 0.7 * n / len(rows), f"applied {n} of {len(rows)} submissions")
    auto = prolific_auto_apply(study=study)
    return {"submissions": len(rows), "by_status": by_status, "unreadable": unreadable,
            "approved": auto.approved, "rejected": auto.rejected, "screened_out": auto.screened_out,
            "errors": auto.errors}


def _sync_work(job: ProlificSyncJob, attempt: Attempt) -> JobOutcome:
    try:
        result = prolific_submissions_sync(study=job.study, attempt=attempt)
    except MarketplaceError as error:
        raise JobFailed(marketplace_failure(error=error)) from None
    if result["errors"]:
        raise JobFailed("The submissions were read, but Prolific refused some calls: " + "; ".join(result["errors"]),
                        result=result)
    return JobOutcome(fields={"result": result})


def prolific_sync_job_execute(*, job_id: int) -> ProlificSyncJob | None:
    """Run a queued sync job (the Celery task's body)."""
    return job_execute(model=ProlificSyncJob, pk=job_id, work=_sync_work, failure="The sync stopped: ")


def prolific_polls_due(*, now: datetime | None = None) -> int:
    """Queue a sync for every linked study whose poll interval has passed; returns how many.
    (The scheduler calls it; a study with a job queued or running is left to that job.)"""
    now = now or timezone.now()
    queued = 0
    busy = set(ProlificSyncJob.objects.filter(status__in=Job.ACTIVE).values_list("study_id", flat=True))
    for study in ProlificStudy.objects.exclude(pk__in=busy).order_by("pk"):
        if study.last_polled_at is None or study.last_polled_at + timedelta(seconds=study.poll_seconds) <= now:
            prolific_sync_queue(study=study)
            queued += 1
    return queued
