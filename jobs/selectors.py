"""Reads about jobs: live progress, whether a running job lost its worker, whether a queued one
lost its message, how many jobs are ahead of a queued one, and whether a job worker is alive."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from jobs.live import WORKER_KEY, dead_seconds, live_key
from jobs.models import Job, JobStatus

Status = JobStatus


@dataclass(frozen=True)
class LiveState:
    progress: float
    stage: str
    heartbeat_at: datetime | None

    @property
    def percent(self) -> int:
        return int(round(100 * self.progress))


def live_state(*, job: Job) -> LiveState:
    """Progress, stage and last heartbeat of a job: from the cache while it runs."""
    if job.status == Status.RUNNING:
        data = cache.get(live_key(job))
        if data:
            beat = datetime.fromtimestamp(data["beat"], tz=UTC)
            return LiveState(data["progress"], data["stage"], beat)
    return LiveState(job.progress, job.stage, job.heartbeat_at)


def is_dead(*, job: Job, now: datetime | None = None) -> bool:
    """A running job whose last heartbeat is older than JOB_DEAD_SECONDS: its worker died. Only
    the scheduler and the writes that meet such a job mark it failed; a page derives it here."""
    if job.status != Status.RUNNING:
        return False
    state = live_state(job=job)
    if getattr(cache, "on_fallback", False):
        # The shared cache is away (the read above found it so): each process sees only the
        # heartbeats it wrote itself, so an old one says nothing of the worker. Undecided, and
        # so not dead, until the cache is back.
        return False
    now = now or timezone.now()
    beat = state.heartbeat_at or job.started_at or job.created_at
    return (now - beat).total_seconds() > dead_seconds()


def dead_job_error() -> str:
    """What a job whose worker died says (stored when it is marked failed, shown before)."""
    return (f"The job worker stopped: no heartbeat for more than {dead_seconds():.0f} s. The scheduler sends the job "
            "to the queue again while it has attempts left; restart it to do so now.")


def worker_stopped_error(*, job: Job) -> str:
    """What a running job whose worker died says, naming the attempt it died in."""
    return (f"The job worker stopped: no heartbeat for more than {dead_seconds():.0f} s, during attempt "
            f"{job.attempts} of {max_attempts()}")


def max_attempts() -> int:
    return max(int(settings.JOB_MAX_ATTEMPTS), 1)


def queued_seconds() -> float:
    return float(settings.JOB_QUEUED_SECONDS)


def is_stale(*, job: Job, now: datetime | None = None) -> bool:
    """A queued job that no worker has taken for JOB_QUEUED_SECONDS since it was last sent: its
    message may be lost. The scheduler sends it again (or fails it), and it may be restarted."""
    if job.status != Status.QUEUED:
        return False
    return ((now or timezone.now()) - job.queued_at).total_seconds() > queued_seconds()


def jobs_running_alive(*, now: datetime | None = None) -> bool:
    """Whether any job of any kind runs on a live worker: the workers are busy, so a queued job
    that waits is waiting its turn rather than for a lost message."""
    now = now or timezone.now()
    return any(not is_dead(job=job, now=now)
               for model in job_models() for job in model._default_manager.filter(status=Status.RUNNING))


def worker_last_seen() -> datetime | None:
    """When a job worker last said it was alive, if ever."""
    data = cache.get(WORKER_KEY)
    return datetime.fromtimestamp(data["at"], tz=UTC) if data else None


def worker_alive(*, now: datetime | None = None) -> bool:
    seen = worker_last_seen()
    return seen is not None and (now or timezone.now()) - seen < timedelta(seconds=dead_seconds())


def job_models() -> list[type[Job]]:
    """Every kind of job the installed apps define."""
    from django.apps import apps

    return [m for m in apps.get_models() if issubclass(m, Job)]


def jobs_ahead(*, job: Job) -> int:
    """Active jobs of every kind created before this one: what a worker does first."""
    return sum(model._default_manager.filter(status__in=Job.ACTIVE, created_at__lt=job.created_at).count()
               for model in job_models())
