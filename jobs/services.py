"""Writes of background jobs: queueing, one attempt's lifecycle (``job_execute``), cancelling,
restarting, and healing jobs that lost their worker or their message.

The job row holds the durable state; while an attempt runs, its progress and heartbeat go to the
cache (``jobs.live``). Every write of an attempt is guarded by the attempt's ``token``: an
attempt that was given up can never overwrite a newer one.

A job gets ``JOB_MAX_ATTEMPTS`` attempts, counted where a worker claims one (``job_claim``), so
that a message the broker delivers again after its worker crashed counts too. What the scheduler
does every 15 s (``jobs.healing.jobs_heal``):

- a running job whose heartbeat is older than ``JOB_DEAD_SECONDS`` lost its worker (killed, or
  crashed by the job itself): it goes back to the queue while it has attempts left, else it fails
  saying which attempt the worker stopped in. A page that looks at it only says so
  (``jobs.selectors.is_dead``); it can be restarted at once.
- a queued job that no worker took for ``JOB_QUEUED_SECONDS`` is sent again. When its message
  is known to be lost (no job runs on a live worker, or a job sent after it was claimed), the
  send counts, and after ``JOB_MAX_ATTEMPTS`` of them it fails with the reason. It can be
  restarted at once.

A lost database is a transient fault: the attempt goes back to the queue (or, when even that
write cannot reach the database, is left for the retry and the scheduler) and runs again once
the database is back, within the attempt cap.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db import (
    InterfaceError,
    OperationalError,
    close_old_connections,
    connection,
    transaction,
)
from django.db.models import QuerySet
from django.utils import timezone

from jobs.live import LIVE_TTL, Attempt, JobCancelled, cancel_key, dead_seconds, live_key
from jobs.models import Job, JobStatus
from jobs.queue import task_send
from jobs.selectors import (
    is_dead,
    is_stale,
    live_state,
    max_attempts,
    queued_seconds,
    worker_stopped_error,
)
from runtime.unavailable import ServiceUnavailable

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


def job_send(*, job: Job) -> None:
    """Send the job to its Celery task (``task_name`` of its model)."""
    task_send(type(job).task_name, job.pk)


def job_enqueue(*, job: Job, send: Callable[[int], Any] | None = None) -> None:
    """Send the job to the queue once the transaction that created it commits.

    A broker that cannot be reached fails the job with the reason (the row is committed, so
    nothing is lost, and it can be restarted) and raises ServiceUnavailable, which the request
    that queued the job answers with 503 and Retry-After. The exception leaves through the
    commit of the caller's transaction (or this call, outside one); jobs queued in the same
    transaction after this one stay queued and the scheduler sends them once it can."""
    token = job.token

    def publish() -> None:
        try:
            if send is not None:
                send(job.pk)
            else:
                job_send(job=job)
        except Exception as exc:  # the broker's errors differ by transport
            logger.warning("could not queue %s", job, exc_info=True)
            type(job)._default_manager.filter(pk=job.pk, status=Status.QUEUED, token=token).update(
                status=Status.FAILED, finished_at=timezone.now(),
                error=f"The job queue could not be reached ({failure_message(exc=exc)}); restart the job once the "
                      "broker is back.",
            )
            label, wait = f"{type(job)._meta.verbose_name} #{job.pk}", int(settings.UNAVAILABLE_RETRY_AFTER)
            raise ServiceUnavailable(
                "the job queue", retry_after=wait,
                detail=f"The job queue could not be reached: {label} was not queued and is marked failed. "
                       f"Try again in {wait} s.",
            ) from exc

    transaction.on_commit(publish)


# --- an attempt, in the worker -----------------------------------------------------------------


def job_claim(*, model: type[J], pk: int) -> J | None:
    """Start a new attempt at a queued job (or at a running one whose worker died). Returns None
    when the job is finished, or when it has used its JOB_MAX_ATTEMPTS attempts (it fails then,
    with the last attempt's error); raises JobBusy when a live worker runs it.

    Attempts are counted here, not where messages are sent, so that a message the broker
    delivers again after its worker crashed counts as the attempt it is."""
    now = timezone.now()
    with transaction.atomic():
        job = model._default_manager.select_for_update().get(pk=pk)
        if job.is_finished:
            return None
        if job.status == Status.RUNNING and not is_dead(job=job, now=now):
            beat = live_state(job=job).heartbeat_at or now
            raise JobBusy(max(dead_seconds() - (now - beat).total_seconds(), 1.0))
        if job.attempts >= max_attempts():
            if job.status == Status.RUNNING:
                job.error = f"{worker_stopped_error(job=job)}; the job was given up. Restart it once the cause is fixed."
            else:
                last = job.error or "no error was recorded"
                job.error = f"The job used its {job.attempts} attempts; the last one ended: {last}"
            job.status, job.finished_at = Status.FAILED, now
            job.save(update_fields=["status", "finished_at", "error"])
            return None
        job.status, job.token, job.attempts = Status.RUNNING, uuid.uuid4(), job.attempts + 1
        job.started_at = job.heartbeat_at = now
        job.finished_at = None
        job.sends = 0
        job.progress, job.stage, job.error = 0.0, "starting", ""
        job.save(update_fields=["status", "token", "attempts", "started_at", "heartbeat_at", "finished_at",
                                "sends", "progress", "stage", "error"])
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
    """Put the attempt back in the queue after a transient fault (the database went away); once
    the job has used its attempts, fail it with ``reason`` instead. True when it was requeued."""
    cap = max_attempts()
    ended = f"Attempt {job.attempts} of {cap} ended: {reason}"
    if job.attempts >= cap:
        job_fail(job=job, error=f"{ended}. The job was given up; restart it once the cause is fixed.")
        return False
    return bool(_guarded(job).update(status=Status.QUEUED, stage="", queued_at=timezone.now(), sends=0,
                                     error=f"{ended}; it will be tried again."[:10000]))


def _requeue_after(job: Job, fault: Exception) -> bool:
    """Put the attempt back in the queue after a transient fault; True when a retry should
    follow. When the database is still away even for that, the attempt's live heartbeat is
    dropped, so that the retry (or the scheduler) sees at once that no worker runs it and takes
    it again once the database is back."""
    if not connection.in_atomic_block:
        close_old_connections()  # drop a broken connection before writing the status
    try:
        return job_requeue(job=job, reason=failure_message(exc=fault))
    except TRANSIENT:
        logger.warning("%s: the database is still away; the retry takes it again", job)
        try:
            cache.delete(live_key(job))
        except Exception:
            logger.warning("could not drop the live state of %s", job, exc_info=True)
        return True


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
    attempt that ended other than by a transient fault, and when the job had finished already
    (a job that failed for want of attempts keeps it, so that it can be restarted). Returns the
    job as the attempt left it, or None when it had finished already; raises JobBusy when a live
    worker runs it.
    """
    job = job_claim(model=model, pk=pk)
    if job is None:
        finished = model._default_manager.get(pk=pk)
        if cleanup is not None and finished.status != Status.FAILED:
            cleanup(finished)
        return None
    fault: Exception | None = None
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
            # Handled once the heartbeat stopped (see _requeue_after).
            fault = exc
        except Exception as exc:
            logger.exception("%s failed", job)
            job_fail(job=job, error=failure + failure_message(exc=exc))
    if fault is not None:
        if _requeue_after(job, fault):
            raise TransientFault(str(fault)) from fault
    elif cleanup is not None:
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


def job_restart(*, job: J, send: Callable[[int], Any] | None = None) -> J:
    """Queue a failed or cancelled job again, or one whose worker died, or a queued one that no
    worker took for JOB_QUEUED_SECONDS (its message may be lost), with JOB_MAX_ATTEMPTS
    attempts again. Raises ServiceUnavailable when the job queue cannot be reached (the job is
    then failed, as job_enqueue says)."""
    with transaction.atomic():
        job = type(job)._default_manager.select_for_update().get(pk=job.pk)
        if job.status == Status.RUNNING and is_dead(job=job):
            job.status = Status.FAILED
        if not (job.status in (Status.FAILED, Status.CANCELLED) or is_stale(job=job)):
            raise ValueError(f"only failed or cancelled jobs can be restarted, or queued ones that no worker took "
                             f"within {queued_seconds():.0f} s; this one is {job.get_status_display().lower()}")
        job.status, job.token = Status.QUEUED, uuid.uuid4()
        job.attempts, job.sends, job.queued_at = 0, 0, timezone.now()
        job.progress, job.stage, job.error = 0.0, "", ""
        job.started_at = job.finished_at = job.heartbeat_at = None
        job.save(update_fields=["status", "token", "attempts", "sends", "queued_at", "progress", "stage", "error",
                                "started_at", "finished_at", "heartbeat_at"])
        job_enqueue(job=job, send=send)
    return job
