"""What every job's Celery task shares: how services queue it, and the retries it owns.

A task is thin: it fetches by id and calls a service (which runs ``jobs.services.job_execute``).
The service must not import the task module back, so it queues its task by name (``task_send``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import current_app

from jobs.models import Job
from jobs.services import JobBusy, TransientFault, job_give_up


def run_as_task(task, execute: Callable[[], Job | None], *, model: type[Job], pk: int) -> str:
    """The retries every job's Celery task owns: a job a live worker holds is tried again once
    that worker's heartbeat could have stopped; one requeued after a transient fault is retried
    with backoff, and failed once the retries are spent."""
    try:
        job = execute()
    except JobBusy as busy:
        raise task.retry(countdown=busy.retry_in, max_retries=None) from None
    except TransientFault as exc:
        if task.request.retries >= task.max_retries:
            job_give_up(model=model, pk=pk, error=f"gave up after {task.max_retries} retries: {exc}")
            return "failed"
        raise task.retry(countdown=2 ** task.request.retries) from exc
    return "finished earlier" if job is None else job.status


def task_send(name: str, *args: Any) -> None:
    """Queue the Celery task registered as ``name`` with these arguments."""
    app = current_app
    task = app.tasks.get(name)
    if task is None:
        # Celery imports the apps' tasks modules lazily: a process that has not needed one yet
        # (a web server) imports them now.
        app.autodiscover_tasks(force=True)
        task = app.tasks.get(name)
    if task is None:
        known = sorted(n for n in app.tasks if not n.startswith("celery."))
        raise KeyError(f"no Celery task is registered as {name!r}; known: {', '.join(known) or 'none'}")
    task.delay(*args)
