"""What every job's Celery task shares: how services queue it, and the retries it owns.

A task is thin: it fetches by id and calls a service (which runs ``jobs.services.job_execute``).
The service must not import the task module back, so it queues its task by name (``task_send``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from jobs.models import Job
from jobs.queue import task_send
from jobs.services import TRANSIENT, JobBusy, TransientFault

__all__ = ["run_as_task", "task_send"]
logger = logging.getLogger(__name__)
# Retries of a job whose database went away, waiting 1, 2, 4 … up to RETRY_WAIT_MAX seconds
# (about 5 minutes in all). Past them the message is dropped and the scheduler takes over: it
# sends the job again once the database is back (jobs.services.jobs_heal).
TRANSIENT_RETRIES = 12
RETRY_WAIT_MAX = 30
RETRIED: tuple[type[Exception], ...] = (TransientFault, *TRANSIENT)


def run_as_task(task, execute: Callable[[], Job | None], *, model: type[Job], pk: int) -> str:
    """The retries every job's Celery task owns: a job a live worker holds is tried again once
    that worker's heartbeat could have stopped; one whose database went away (during its
    attempt, which went back to the queue, or before it could be claimed) is tried again with
    backoff. Attempts are counted, and capped, where a worker claims them (``job_claim``)."""
    try:
        job = execute()
    except JobBusy as busy:
        # For as long as the holder lives, with no count: retry() reads max_retries=None as "the
        # task's own limit" (3), which dropped the message of a job whose holder outlived three
        # looks. The limit given is the count this retry reaches, so it is always allowed.
        raise task.retry(countdown=busy.retry_in, max_retries=task.request.retries + 1) from None
    except RETRIED as exc:
        retries = task.request.retries
        if retries >= TRANSIENT_RETRIES:
            logger.warning("%s %s: the database is still away after %d retries; the scheduler will send it again",
                           model._meta.verbose_name, pk, retries)
            return "left to the scheduler"
        raise task.retry(countdown=min(2 ** retries, RETRY_WAIT_MAX), max_retries=TRANSIENT_RETRIES) from exc
    return "finished earlier" if job is None else job.status
