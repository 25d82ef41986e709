"""What the scheduler does for jobs that lost their worker or their message (every 15 s, see
``jobs.services`` for the lifecycle): a running job whose worker died goes back to the queue
while it has attempts left, else fails saying which attempt its worker stopped in; a queued job
that no worker took for JOB_QUEUED_SECONDS is sent again, and once its message is known to be lost
(see ``jobs_resend``), up to JOB_MAX_ATTEMPTS times, then fails with the reason. Both write guarded
by the attempt's token, and send once they commit."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import partial
from typing import Any, TypeVar

from django.db import DatabaseError, transaction
from django.db.models import F
from django.utils import timezone

from jobs.models import Job, JobStatus
from jobs.selectors import (
    is_dead,
    job_models,
    jobs_running_alive,
    max_attempts,
    queued_seconds,
    worker_stopped_error,
)
from jobs.services import job_send

logger = logging.getLogger(__name__)
Status = JobStatus
J = TypeVar("J", bound=Job)


def _send_quietly(job: Job) -> None:
    """What the scheduler's sends do: a broker that is away leaves the job queued, and the
    next round sends it again."""
    try:
        job_send(job=job)
    except Exception:
        logger.warning("could not send %s to the job queue; the next round tries again", job, exc_info=True)


def jobs_reap(*, model: type[J], now: datetime | None = None, jobs: Iterable[J] | None = None) -> int:
    """Running jobs whose worker died go back to the queue (and are sent again) while they have
    attempts left, else fail saying which attempt the worker stopped in; returns how many."""
    now = now or timezone.now()
    candidates = list(jobs) if jobs is not None else list(model._default_manager.filter(status=Status.RUNNING))
    reaped = 0
    for job in candidates:
        if not is_dead(job=job, now=now):
            continue
        if job.attempts < max_attempts():
            fields: dict[str, Any] = dict(
                status=Status.QUEUED, queued_at=now, sends=0, stage="",
                error=f"{worker_stopped_error(job=job)}; it was sent to the queue again.",
            )
        else:
            fields = dict(status=Status.FAILED, finished_at=now,
                          error=f"{worker_stopped_error(job=job)}; the job was given up. Restart it once the cause is fixed.")
        try:
            # A savepoint, so that a refused write leaves a caller's transaction usable.
            with transaction.atomic():
                done = model._default_manager.filter(pk=job.pk, status=Status.RUNNING, token=job.token).update(**fields)
                if done and fields["status"] == Status.QUEUED:
                    transaction.on_commit(partial(_send_quietly, job))
            reaped += done
        except DatabaseError:
            # SQLite is locked by a long write; the scheduler's next round will catch it.
            logger.warning("could not mark %s as dead now", job)
    return reaped


def message_lost(*, job: Job) -> bool:
    """Whether a job created after this one was claimed from a message sent after this one's.
    The job queue is first in, first out, so this one's message would have been taken first:
    it was lost. (A claim's ``started_at`` is not before the ``queued_at`` of the message it
    took; a job sent again since, or restarted, has a newer ``queued_at`` and says nothing.)"""
    return any(
        other._default_manager.filter(created_at__gt=job.created_at, queued_at__gt=job.queued_at,
                                      started_at__gte=F("queued_at")).exists()
        for other in job_models()
    )


def jobs_resend(*, model: type[J], now: datetime | None = None, idle: bool | None = None) -> int:
    """Queued jobs that no worker took for JOB_QUEUED_SECONDS are sent again; returns how many
    were sent again or failed. ``idle``: no job runs on a live worker (found out when not given).

    A send counts toward "No job worker took this job" only when the job's message is known to
    be lost: the workers are idle, or a job sent after it was claimed (``message_lost``). Such a
    job fails once it was sent JOB_MAX_ATTEMPTS times. Any other stale job may only be waiting
    its turn behind long jobs: it is sent again without counting, so that a lost message waits
    no longer than JOB_QUEUED_SECONDS, and a job that waits in a backlog is never failed for it.
    A second message is harmless: the first claim runs the job, later ones find it running
    (``JobBusy``) or finished (``job_claim``)."""
    now = now or timezone.now()
    bound, cap = queued_seconds(), max_attempts()
    if idle is None:
        idle = not jobs_running_alive(now=now)
    handled = 0
    for job in model._default_manager.filter(status=Status.QUEUED, queued_at__lt=now - timedelta(seconds=bound)):
        if not (idle or message_lost(job=job)):
            fields: dict[str, Any] = dict(
                queued_at=now,
                error=f"Other jobs were running for more than {bound:.0f} s since it was queued; it was sent to "
                      "the queue again in case its message was lost (it runs once).",
            )
        elif job.sends < cap:
            fields = dict(
                queued_at=now, sends=F("sends") + 1,
                error=f"No job worker took it within {bound:.0f} s of being queued; it was sent to the queue again "
                      f"({job.sends + 1} of {cap}).",
            )
        else:
            fields = dict(status=Status.FAILED, finished_at=now,
                          error=f"No job worker took this job: it was sent to the job queue {cap + 1} times, "
                                f"{bound:.0f} s apart. Check that a worker runs (make worker), then restart it.")
        try:
            with transaction.atomic():
                done = model._default_manager.filter(
                    pk=job.pk, status=Status.QUEUED, token=job.token, queued_at=job.queued_at).update(**fields)
                if done and "status" not in fields:
                    transaction.on_commit(partial(_send_quietly, job))
            handled += done
        except DatabaseError:
            logger.warning("could not send %s again now", job)
    return handled


def jobs_heal(*, now: datetime | None = None) -> tuple[int, int]:
    """What the scheduler does every 15 s, for every kind of job: (jobs whose worker died that
    went back to the queue or failed, queued jobs sent again or failed)."""
    now = now or timezone.now()
    reaped = sum(jobs_reap(model=model, now=now) for model in job_models())
    idle = not jobs_running_alive(now=now)
    resent = sum(jobs_resend(model=model, now=now, idle=idle) for model in job_models())
    return reaped, resent
