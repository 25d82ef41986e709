"""What every job's Celery task shares: the retries it owns."""

from __future__ import annotations

from collections.abc import Callable

from jobs.models import Job
from jobs.services import JobBusy, job_give_up


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
