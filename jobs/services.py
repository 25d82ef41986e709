"""Running background jobs: queueing, claiming an attempt, live progress and heartbeat,
cancellation, finishing, and telling dead jobs from live ones.

The job row holds the durable state. While an attempt runs, its progress and heartbeat go to the
cache, written by the attempt itself and by a heartbeat thread that beats even while the job sits
in one long computation or one long transaction. A running job whose heartbeat is older than
``JOB_DEAD_SECONDS`` lost its worker; it is marked failed (by the scheduler, and by any page that
looks at it) and can be restarted at once. Every write of an attempt is guarded by the attempt's
``token``: an attempt that was given up can never overwrite a newer one.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, transaction
from django.utils import timezone

from jobs.models import Job, JobStatus

logger = logging.getLogger(__name__)
Status = JobStatus
J = TypeVar("J", bound=Job)
# How long live state stays in the cache without being refreshed.
LIVE_TTL = 6 * 3600
WORKER_KEY = "jobs:worker"


class JobBusy(Exception):
    """Another live worker runs this job; try again after ``retry_in`` seconds."""

    def __init__(self, retry_in: float) -> None:
        super().__init__(f"the job is running on another worker; retry in {retry_in:.0f} s")
        self.retry_in = retry_in


class JobCancelled(Exception):
    """The job was cancelled (or given up) while this attempt ran."""


def heartbeat_seconds() -> float:
    return float(settings.JOB_HEARTBEAT_SECONDS)


def dead_seconds() -> float:
    return float(settings.JOB_DEAD_SECONDS)


def _key(job: Job) -> str:
    return f"job:{job._meta.label_lower}:{job.pk}:{job.token}"


def _cancel_key(job: Job) -> str:
    return _key(job) + ":cancel"


# --- queueing ----------------------------------------------------------------------------------


def job_enqueue(job: Job, send: Callable[[int], Any]) -> None:
    """Send the job to the queue once the transaction that created it commits. A broker that
    cannot be reached fails the job with the reason instead of leaving it queued forever."""

    def publish() -> None:
        try:
            send(job.pk)
        except Exception as exc:  # the broker's errors differ by transport
            logger.exception("could not queue %s", job)
            type(job).objects.filter(pk=job.pk, status=Status.QUEUED).update(
                status=Status.FAILED, finished_at=timezone.now(),
                error=f"The job queue could not be reached ({exc}); start the broker and restart the job.",
            )

    transaction.on_commit(publish)


# --- live state --------------------------------------------------------------------------------


@dataclass(frozen=True)
class LiveState:
    progress: float
    stage: str
    heartbeat_at: datetime | None

    @property
    def percent(self) -> int:
        return int(round(100 * self.progress))


def live_state(job: Job) -> LiveState:
    """Progress, stage and last heartbeat of a job: from the cache while it runs."""
    if job.status == Status.RUNNING:
        data = cache.get(_key(job))
        if data:
            beat = datetime.fromtimestamp(data["beat"], tz=UTC)
            return LiveState(data["progress"], data["stage"], beat)
    return LiveState(job.progress, job.stage, job.heartbeat_at)


def is_dead(job: Job, *, now: datetime | None = None) -> bool:
    """A running job whose last heartbeat is older than JOB_DEAD_SECONDS."""
    if job.status != Status.RUNNING:
        return False
    now = now or timezone.now()
    beat = live_state(job).heartbeat_at or job.started_at or job.created_at
    return (now - beat).total_seconds() > dead_seconds()


def jobs_reap(model: type[J], *, now: datetime | None = None, jobs: Iterable[J] | None = None) -> int:
    """Mark running jobs whose worker died as failed; returns how many."""
    now = now or timezone.now()
    candidates = list(jobs) if jobs is not None else list(model.objects.filter(status=Status.RUNNING))
    reaped = 0
    for job in candidates:
        if not is_dead(job, now=now):
            continue
        try:
            reaped += model.objects.filter(pk=job.pk, status=Status.RUNNING, token=job.token).update(
                status=Status.FAILED, finished_at=now,
                error=f"The job worker stopped: no heartbeat for more than {dead_seconds():.0f} s. Restart the job.",
            )
        except DatabaseError:
            # SQLite is locked by a long write; the next look will catch it.
            logger.warning("could not mark %s as dead now", job)
    return reaped


# --- an attempt, in the worker -----------------------------------------------------------------


def job_claim(model: type[J], pk: int) -> J | None:
    """Start a new attempt at a queued job (or at a running one whose worker died). Returns None
    when the job is finished; raises JobBusy when a live worker runs it."""
    now = timezone.now()
    with transaction.atomic():
        job = model.objects.select_for_update().get(pk=pk)
        if job.is_finished:
            return None
        if job.status == Status.RUNNING and not is_dead(job, now=now):
            beat = live_state(job).heartbeat_at or now
            raise JobBusy(max(dead_seconds() - (now - beat).total_seconds(), 1.0))
        job.status, job.token, job.attempts = Status.RUNNING, uuid.uuid4(), job.attempts + 1
        job.started_at = job.heartbeat_at = now
        job.finished_at = None
        job.progress, job.stage, job.error = 0.0, "starting", ""
        job.save(update_fields=["status", "token", "attempts", "started_at", "heartbeat_at", "finished_at",
                                "progress", "stage", "error"])
    return job


class Attempt:
    """The running attempt of a job: ``progress(fraction, stage)`` reports (and raises
    JobCancelled once the job was cancelled); a thread keeps the heartbeat going meanwhile.

    Use it as a context manager around the job's work.
    """

    # Progress reports closer together than this only update memory; the heartbeat carries them.
    MIN_REPORT_INTERVAL = 0.5

    def __init__(self, job: Job) -> None:
        self.job = job
        self._progress, self._stage = 0.0, "starting"
        self._cancelled = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._last_report = 0.0
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Attempt:
        self._publish()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{self.job.pk}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=heartbeat_seconds() + 5)

    def progress(self, fraction: float, stage: str) -> None:
        with self._lock:
            self._progress = max(0.0, min(float(fraction), 1.0))
            self._stage = stage[:200]
        now = time.monotonic()
        if now - self._last_report >= self.MIN_REPORT_INTERVAL:
            self._last_report = now
            self._publish()
            self._look_for_cancel()
        self.check()

    def check(self) -> None:
        """Raise JobCancelled if the job was cancelled; for loops that report no progress."""
        if self._cancelled.is_set():
            raise JobCancelled(f"{self.job} was cancelled")

    def _look_for_cancel(self) -> None:
        try:
            if cache.get(_cancel_key(self.job)):
                self._cancelled.set()
        except Exception:
            logger.warning("could not read the cancel flag of %s", self.job, exc_info=True)

    def _publish(self) -> None:
        with self._lock:
            state = {"progress": self._progress, "stage": self._stage, "beat": time.time()}
        try:
            cache.set(_key(self.job), state, LIVE_TTL)
        except Exception:  # a cache outage must not kill the job; it only hides its progress
            logger.warning("could not store the live state of %s", self.job, exc_info=True)

    def _beat(self) -> None:
        while not self._stop.wait(heartbeat_seconds()):
            self._publish()
            self._look_for_cancel()


def _guarded(job: Job):
    return type(job).objects.filter(pk=job.pk, token=job.token, status=Status.RUNNING)


def job_finish(job: Job, **fields: Any) -> bool:
    """Store the attempt's outcome; False when the attempt was given up meanwhile (cancelled,
    reaped or restarted), in which case nothing was written. Call it inside the transaction of
    the job's own writes, so that they commit only together with the outcome."""
    now = timezone.now()
    return bool(_guarded(job).update(status=Status.DONE, progress=1.0, stage="done", finished_at=now,
                                     heartbeat_at=now, **fields))


def job_fail(job: Job, error: str, **fields: Any) -> bool:
    now = timezone.now()
    return bool(_guarded(job).update(status=Status.FAILED, finished_at=now, heartbeat_at=now,
                                     error=error[:10000], **fields))


def failure_message(exc: BaseException) -> str:
    """What a failed job says: the error's class (without its module path) and message."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def job_requeue(job: Job, reason: str) -> bool:
    """Put the attempt back in the queue after a transient fault (the database went away)."""
    return bool(_guarded(job).update(status=Status.QUEUED, stage="", error=f"retrying after: {reason}"[:10000]))


# --- what people do to jobs --------------------------------------------------------------------


def _refuse_cancel(job: Job) -> None:
    if not job.is_active:
        raise ValueError(f"only queued or running jobs can be cancelled; this one is {job.get_status_display().lower()}")


def job_cancel(job: J, *, by: str = "") -> J:
    """Cancel a queued or running job at once; a running attempt stops at its next progress
    report, and whatever it computes after that is discarded."""
    current = type(job).objects.get(pk=job.pk)
    _refuse_cancel(current)
    # Tell the running attempt before taking the row's lock: on SQLite, an import's writes hold
    # the database's write lock until it stops, which it does on seeing this.
    cache.set(_cancel_key(current), True, LIVE_TTL)
    with transaction.atomic():
        job = type(job).objects.select_for_update().get(pk=job.pk)
        _refuse_cancel(job)
        cache.set(_cancel_key(job), True, LIVE_TTL)
        job.status, job.finished_at = Status.CANCELLED, timezone.now()
        job.stage = "cancelled"
        job.error = f"Cancelled by {by}." if by else "Cancelled."
        job.save(update_fields=["status", "finished_at", "stage", "error"])
    return job


def job_restart(job: J, send: Callable[[int], Any]) -> J:
    """Queue a failed or cancelled job again (or one whose worker died), as a new attempt."""
    with transaction.atomic():
        job = type(job).objects.select_for_update().get(pk=job.pk)
        if job.status == Status.RUNNING and is_dead(job):
            job.status = Status.FAILED
        if job.status not in (Status.FAILED, Status.CANCELLED):
            raise ValueError(f"only failed or cancelled jobs can be restarted; this one is {job.get_status_display().lower()}")
        job.status, job.token = Status.QUEUED, uuid.uuid4()
        job.progress, job.stage, job.error = 0.0, "", ""
        job.started_at = job.finished_at = job.heartbeat_at = None
        job.save(update_fields=["status", "token", "progress", "stage", "error", "started_at", "finished_at",
                                "heartbeat_at"])
        job_enqueue(job, send)
    return job


# --- workers -----------------------------------------------------------------------------------


def worker_beat(hostname: str) -> None:
    """A job worker says it is alive (every heartbeat, from its own thread)."""
    cache.set(WORKER_KEY, {"host": hostname, "at": time.time()}, None)


def worker_last_seen() -> datetime | None:
    """When a job worker last said it was alive, if ever."""
    data = cache.get(WORKER_KEY)
    return datetime.fromtimestamp(data["at"], tz=UTC) if data else None


def worker_alive(*, now: datetime | None = None) -> bool:
    seen = worker_last_seen()
    return seen is not None and (now or timezone.now()) - seen < timedelta(seconds=dead_seconds())


def run_as_task(task, execute: Callable[[], Job | None], *, model: type[Job], pk: int,
                transient: type[Exception]) -> str:
    """The retries every job's Celery task owns: a job a live worker holds is tried again once
    that worker's heartbeat could have stopped; one requeued after a transient fault is retried
    with backoff, and failed once the retries are spent."""
    try:
        job = execute()
    except JobBusy as busy:
        raise task.retry(countdown=busy.retry_in, max_retries=None) from None
    except transient as exc:
        if task.request.retries >= task.max_retries:
            job_give_up(model, pk, f"gave up after {task.max_retries} retries: {exc}")
            return "failed"
        raise task.retry(countdown=2 ** task.request.retries) from exc
    return "finished earlier" if job is None else job.status


def job_give_up(model: type[Job], pk: int, error: str) -> None:
    """Fail a job that was requeued after transient faults once its retries are spent."""
    model.objects.filter(pk=pk, status=Status.QUEUED).update(
        status=Status.FAILED, finished_at=timezone.now(), error=error[:10000]
    )


def job_models() -> list[type[Job]]:
    """Every kind of job the installed apps define."""
    from django.apps import apps

    return [m for m in apps.get_models() if issubclass(m, Job)]


def jobs_ahead(job: Job) -> int:
    """Active jobs of every kind created before this one: what a worker does first."""
    return sum(model.objects.filter(status__in=Job.ACTIVE, created_at__lt=job.created_at).count()
               for model in job_models())


def jobs_reap_all() -> int:
    return sum(jobs_reap(model) for model in job_models())
