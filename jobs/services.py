"""Writes of background jobs: queueing, one attempt's lifecycle (``job_execute``), cancelling,
restarting, and marking dead jobs failed.

The job row holds the durable state; while an attempt runs, its progress and heartbeat go to the
cache (``jobs.live``). A running job whose heartbeat is older than ``JOB_DEAD_SECONDS`` lost its
worker: the scheduler marks it failed, and so do the writes that meet it (a restart, a new run),
while a page that looks at it only says so (``jobs.selectors.is_dead``). It can be restarted at
once. Every write of an attempt is guarded by the attempt's ``token``: an attempt that was given
up can never overwrite a newer one.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db import (
    DatabaseError,
    InterfaceError,
    OperationalError,
    close_old_connections,
    connection,
    transaction,
)
from django.db.models import QuerySet
from django.utils import timezone

from jobs.live import LIVE_TTL, Attempt, JobCancelled, cancel_key, dead_seconds
from jobs.models import Job, JobStatus
from jobs.selectors import dead_job_error, is_dead, job_models, live_state

logger = logging.getLogger(__name__)
Status = JobStatus
# The job models are known only at run time, so their rows are reached through _default_manager,
# Django's handle for a model whose managers generic code cannot name (``objects`` for every job).
J = TypeVar("J", bound=Job)
# Faults worth retrying: the database went away (restarted, failed over, connection dropped).
TRANSIENT: tuple[type[Exception], ...] = (OperationalError, InterfaceError)


class JobBusy(Exception):
    """Another live worker runs this job; try again after ``retry_in`` seconds."""

    def __init__(self, retry_in: float) -> None:
        super().__init__(f"the job is running on another worker; retry in {retry_in:.0f} s")
        self.retry_in = retry_in


class TransientFault(Exception):
    """A fault worth retrying (the database went away); the job was put back in the queue."""


class JobFailed(Exception):
    """What a job's work raises for a failure it can explain: the job fails with ``message`` and
    stores ``fields`` beside it (the bad lines of a refused file), and no error is logged."""

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields


@dataclass(frozen=True)
class JobOutcome:
    """What an attempt's work produced: ``fields`` to store on the job's row with its outcome,
    and ``write``, the job's own writes (returning more fields to store). ``write`` runs inside
    the transaction that stores the outcome, so the two commit together, or, when the attempt was
    given up meanwhile, neither does."""

    fields: Mapping[str, Any] = field(default_factory=dict)
    write: Callable[[], Mapping[str, Any]] | None = None


class KeepsUpload(Protocol):
    """A job that keeps its upload in the default storage (``stored_name``) until an attempt
    has read it."""

    pk: Any
    stored_name: str


# --- queueing ----------------------------------------------------------------------------------


def job_enqueue(*, job: Job, send: Callable[[int], Any]) -> None:
    """Send the job to the queue once the transaction that created it commits. A broker that
    cannot be reached fails the job with the reason instead of leaving it queued forever."""

    def publish() -> None:
        try:
            send(job.pk)
        except Exception as exc:  # the broker's errors differ by transport
            logger.exception("could not queue %s", job)
            type(job)._default_manager.filter(pk=job.pk, status=Status.QUEUED).update(
                status=Status.FAILED, finished_at=timezone.now(),
                error=f"The job queue could not be reached ({exc}); start the broker and restart the job.",
            )

    transaction.on_commit(publish)


# --- dead workers ------------------------------------------------------------------------------


def jobs_reap(*, model: type[J], now: datetime | None = None, jobs: Iterable[J] | None = None) -> int:
    """Mark running jobs whose worker died as failed; returns how many."""
    now = now or timezone.now()
    candidates = list(jobs) if jobs is not None else list(model._default_manager.filter(status=Status.RUNNING))
    reaped = 0
    for job in candidates:
        if not is_dead(job=job, now=now):
            continue
        try:
            # A savepoint, so that a refused write leaves a caller's transaction usable.
            with transaction.atomic():
                reaped += model._default_manager.filter(pk=job.pk, status=Status.RUNNING, token=job.token).update(
                    status=Status.FAILED, finished_at=now, error=dead_job_error(),
                )
        except DatabaseError:
            # SQLite is locked by a long write; the scheduler's next round will catch it.
            logger.warning("could not mark %s as dead now", job)
    return reaped


def jobs_reap_all() -> int:
    """What the scheduler does every 15 s: reap every kind of job."""
    return sum(jobs_reap(model=model) for model in job_models())


# --- an attempt, in the worker -----------------------------------------------------------------


def job_claim(*, model: type[J], pk: int) -> J | None:
    """Start a new attempt at a queued job (or at a running one whose worker died). Returns None
    when the job is finished; raises JobBusy when a live worker runs it."""
    now = timezone.now()
    with transaction.atomic():
        job = model._default_manager.select_for_update().get(pk=pk)
        if job.is_finished:
            return None
        if job.status == Status.RUNNING and not is_dead(job=job, now=now):
            beat = live_state(job=job).heartbeat_at or now
            raise JobBusy(max(dead_seconds() - (now - beat).total_seconds(), 1.0))
        job.status, job.token, job.attempts = Status.RUNNING, uuid.uuid4(), job.attempts + 1
        job.started_at = job.heartbeat_at = now
        job.finished_at = None
        job.progress, job.stage, job.error = 0.0, "starting", ""
        job.save(update_fields=["status", "token", "attempts", "started_at", "heartbeat_at", "finished_at",
                                "progress", "stage", "error"])
    return job


def _guarded(job: Job) -> QuerySet[Job]:
    return type(job)._default_manager.filter(pk=job.pk, token=job.token, status=Status.RUNNING)


def job_finish(*, job: Job, **fields: Any) -> bool:
    """Store the attempt's outcome; False when the attempt was given up meanwhile (cancelled,
    reaped or restarted), in which case nothing was written. Call it inside the transaction of
    the job's own writes, so that they commit only together with the outcome."""
    now = timezone.now()
    return bool(_guarded(job).update(status=Status.DONE, progress=1.0, stage="done", finished_at=now,
                                     heartbeat_at=now, **fields))


def job_fail(*, job: Job, error: str, **fields: Any) -> bool:
    now = timezone.now()
    return bool(_guarded(job).update(status=Status.FAILED, finished_at=now, heartbeat_at=now,
                                     error=error[:10000], **fields))


def failure_message(*, exc: BaseException) -> str:
    """What a failed job says: the error's class (without its module path) and message."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def job_requeue(*, job: Job, reason: str) -> bool:
    """Put the attempt back in the queue after a transient fault (the database went away)."""
    return bool(_guarded(job).update(status=Status.QUEUED, stage="", error=f"retrying after: {reason}"[:10000]))


def job_execute(*, model: type[J], pk: int, work: Callable[[J, Attempt], JobOutcome],
                transient: tuple[type[Exception], ...] = TRANSIENT, failure: str = "",
                cleanup: Callable[[J], None] | None = None) -> J | None:
    """Run one attempt at a job, as every kind of job does: claim it, run ``work(job, attempt)``
    while the attempt reports progress and heartbeat (``attempt.progress`` raises JobCancelled
    once the job was cancelled), then store the outcome guarded by the attempt's token, in one
    transaction with the work's own writes (see JobOutcome).

    - JobFailed from the work fails the job with its message and fields.
    - JobCancelled ends the attempt: the job was cancelled (or given up), nothing more is written.
    - A ``transient`` fault puts the job back in the queue and raises TransientFault, which the
      Celery task retries (``jobs.tasks.run_as_task``).
    - Any other error fails the job with ``failure`` followed by the error's class and message.

    ``cleanup(job)`` runs once no attempt needs what the job keeps (its stored upload): after an
    attempt that did not go back in the queue, and when the job had finished already. Returns the
    job as the attempt left it, or None when it had finished already; raises JobBusy when a live
    worker runs it.
    """
    job = job_claim(model=model, pk=pk)
    if job is None:
        if cleanup is not None:
            cleanup(model._default_manager.get(pk=pk))
        return None
    requeued = False
    with Attempt(job) as attempt:
        try:
            outcome = work(job, attempt)
            attempt.check()
            with transaction.atomic():
                fields = {**outcome.fields, **(outcome.write() if outcome.write is not None else {})}
                if not job_finish(job=job, **fields):
                    # The attempt was given up meanwhile: its writes go with it.
                    transaction.set_rollback(True)
        except JobFailed as refused:
            job_fail(job=job, error=refused.message, **refused.fields)
        except JobCancelled:
            logger.info("%s was cancelled while running", job)
        except transient as exc:
            if not connection.in_atomic_block:
                close_old_connections()  # drop a broken connection before writing the status
            requeued = job_requeue(job=job, reason=str(exc))
            raise TransientFault(str(exc)) from exc
        except Exception as exc:
            logger.exception("%s failed", job)
            job_fail(job=job, error=failure + failure_message(exc=exc))
        finally:
            if cleanup is not None and not requeued:
                cleanup(job)
    job.refresh_from_db()
    return job


def job_upload_forget(*, job: KeepsUpload) -> None:
    """Delete a job's stored upload and forget its name (once no attempt will read it)."""
    if job.stored_name:
        default_storage.delete(job.stored_name)
        # Any job model that declares the field: the type checker knows only the Protocol.
        model: Any = type(job)
        model._default_manager.filter(pk=job.pk).update(stored_name="")
        job.stored_name = ""


# --- what people do to jobs --------------------------------------------------------------------


def _refuse_cancel(job: Job) -> None:
    if not job.is_active:
        raise ValueError(f"only queued or running jobs can be cancelled; this one is {job.get_status_display().lower()}")


def job_cancel(*, job: J, by: str = "") -> J:
    """Cancel a queued or running job at once; a running attempt stops at its next progress
    report, and whatever it computes after that is discarded."""
    current = type(job)._default_manager.get(pk=job.pk)
    _refuse_cancel(current)
    # Tell the running attempt before taking the row's lock: on SQLite, an import's writes hold
    # the database's write lock until it stops, which it does on seeing this.
    cache.set(cancel_key(current), True, LIVE_TTL)
    with transaction.atomic():
        job = type(job)._default_manager.select_for_update().get(pk=job.pk)
        _refuse_cancel(job)
        cache.set(cancel_key(job), True, LIVE_TTL)
        job.status, job.finished_at = Status.CANCELLED, timezone.now()
        job.stage = "cancelled"
        job.error = f"Cancelled by {by}." if by else "Cancelled."
        job.save(update_fields=["status", "finished_at", "stage", "error"])
    return job


def job_restart(*, job: J, send: Callable[[int], Any]) -> J:
    """Queue a failed or cancelled job again (or one whose worker died), as a new attempt."""
    with transaction.atomic():
        job = type(job)._default_manager.select_for_update().get(pk=job.pk)
        if job.status == Status.RUNNING and is_dead(job=job):
            job.status = Status.FAILED
        if job.status not in (Status.FAILED, Status.CANCELLED):
            raise ValueError(f"only failed or cancelled jobs can be restarted; this one is {job.get_status_display().lower()}")
        job.status, job.token = Status.QUEUED, uuid.uuid4()
        job.progress, job.stage, job.error = 0.0, "", ""
        job.started_at = job.finished_at = job.heartbeat_at = None
        job.save(update_fields=["status", "token", "progress", "stage", "error", "started_at", "finished_at",
                                "heartbeat_at"])
        job_enqueue(job=job, send=send)
    return job


def job_give_up(*, model: type[Job], pk: int, error: str) -> None:
    """Fail a job that was requeued after transient faults once its retries are spent."""
    model._default_manager.filter(pk=pk, status=Status.QUEUED).update(
        status=Status.FAILED, finished_at=timezone.now(), error=error[:10000]
    )
