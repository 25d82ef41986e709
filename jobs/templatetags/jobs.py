"""Template helpers for job progress: live state and whether a worker is there to run it."""

from django import template
from django.utils import timezone

from jobs.selectors import (
    LiveState,
    is_stale,
    jobs_ahead,
    live_state,
    max_attempts,
    queued_seconds,
    worker_alive,
    worker_last_seen,
)

register = template.Library()


@register.filter
def job_live(job) -> LiveState:
    return live_state(job=job)


@register.simple_tag
def job_worker_seen() -> dict:
    """Whether a job worker is alive now, and when one was last seen."""
    seen = worker_last_seen()
    return {"alive": worker_alive(), "seen": seen, "ago": (timezone.now() - seen) if seen else None}


@register.filter
def job_ahead(job) -> int:
    """Queued or running jobs, of any kind, that the workers will take before this one."""
    return jobs_ahead(job=job)


@register.simple_tag
def job_queue(job) -> dict:
    """Whether a queued job waited so long that its message may be lost, and the bounds."""
    return {"stale": is_stale(job=job), "bound": f"{queued_seconds():.0f}", "max_attempts": max_attempts()}
