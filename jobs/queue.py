"""Sending jobs to the Celery queue by task name, so that the services, which the task modules
import, never import a task module back."""

from __future__ import annotations

import threading
from typing import Any

from celery import current_app

# A web process imports the tasks modules on its first send; two threads sending at once (gunicorn
# with threads) must not discover at the same time, or one may look before the other registered.
_discovery = threading.Lock()


def task_send(name: str, *args: Any) -> None:
    """Queue the Celery task registered as ``name`` with these arguments."""
    app = current_app
    task = app.tasks.get(name)
    if task is None:
        # Celery imports the apps' tasks modules lazily: a process that has not needed one yet
        # (a web server) imports them now, one thread at a time.
        with _discovery:
            task = app.tasks.get(name)
            if task is None:
                app.autodiscover_tasks(force=True)
                task = app.tasks.get(name)
    if task is None:
        known = sorted(n for n in app.tasks if not n.startswith("celery."))
        raise KeyError(f"no Celery task is registered as {name!r}; known: {', '.join(known) or 'none'}")
    task.delay(*args)
