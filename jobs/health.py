"""The job worker's part of ``/health/`` (runtime.health): its last heartbeat."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.conf import settings

from jobs.selectors import worker_last_seen


def worker_state(components: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The last heartbeat of a job worker (config/celery.py beats every JOB_HEARTBEAT_SECONDS)."""
    try:
        seen = worker_last_seen()
    except Exception as exc:
        return {"ok": False, "error": type(exc).__name__}
    if seen is None:
        # Without the shared cache the heartbeat cannot be read, which says nothing of the worker.
        cache_ok = components.get("cache", {}).get("ok", False)
        return {"ok": False, "last_heartbeat_seconds": None,
                "error": "never seen" if cache_ok else "unknown while the cache is away"}
    age = max(0.0, (datetime.now(tz=UTC) - seen).total_seconds())
    return {"ok": age < float(settings.JOB_DEAD_SECONDS), "last_heartbeat_seconds": round(age, 1)}
