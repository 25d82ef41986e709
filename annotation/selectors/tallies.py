"""Staff aggregates of large projects, counted by the job worker instead of a page request.

Most staff aggregates read the items' slot counters or an index (``project_progress``, the item
table). Two cannot: the worker table's counts per worker and status, and the answers per hour,
read every assignment of the project. Up to ``STAFF_LIVE_ASSIGNMENTS`` assignments (250,000
by default: UKPConvArg1 has 84,445) pages count them as they render. Above it they show the
project's *tally*: the same aggregates, counted by a background job into the cache and at most
``STAFF_TALLY_SECONDS`` old (60 by default). A page that finds the tally older queues one
refresh (one per project at a time) and shows the tally it has; the first visit of a large
project shows that the counting is under way.

These are the reads; the refresh that stores a tally is ``annotation.services.tallies``.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, F, Max, Q, Window
from django.db.models.functions import RowNumber, TruncHour
from django.utils import timezone

from annotation.models import Annotation, Assignment, Project
from annotation.selectors.counted import counted_as_data
from jobs.tasks import task_send

logger = logging.getLogger(__name__)
# The Celery task that counts a tally (annotation.tasks.refresh_tally).
TALLY_TASK = "annotation.refresh_tally"
Status = Assignment.Status
# Part of the cache key: raised whenever what is cached changes, its fields or the module of its
# classes (the cache pickles them by module and name; 3 since they moved here from services).
VERSION = 3
# The hours up to the latest answer that the answers-per-hour figure shows.
HOURS = 72


def live_limit() -> int:
    return int(getattr(settings, "STAFF_LIVE_ASSIGNMENTS", 250_000))


def refresh_seconds() -> float:
    return float(getattr(settings, "STAFF_TALLY_SECONDS", 60))


def is_large(*, assignments: int) -> bool:
    """Whether a project of this many assignments (held or answered) shows its tally."""
    return assignments > live_limit()


def project_is_large(*, project: Project) -> bool:
    """``is_large`` without counting: whether an assignment lies past the limit (an index scan
    that stops there)."""
    limit = live_limit()
    return bool(list(Assignment.objects.filter(project=project).order_by().values_list("pk", flat=True)[limit:limit + 1]))


@dataclass(frozen=True)
class WorkerTally:
    worker_id: int
    submitted: int
    open: int
    expired: int
    returned: int
    rejected: int
    last_at: datetime | None
    median_seconds: float | None


@dataclass(frozen=True)
class Tally:
    counted_at: datetime
    workers: list[WorkerTally]
    per_hour: list[tuple[datetime, int]]


def status_counts(*, prefix: str = "") -> dict[str, Count]:
    """Assignments by what became of them; ``prefix`` reaches them through a relation."""
    status = f"{prefix}status"
    return {
        "submitted": Count(f"{prefix}pk", filter=Q(**{f"{status}__in": Assignment.COUNTED_STATUSES})),
        "open": Count(f"{prefix}pk", filter=Q(**{status: Status.ASSIGNED})),
        "expired": Count(f"{prefix}pk", filter=Q(**{status: Status.EXPIRED})),
        "returned": Count(f"{prefix}pk", filter=Q(**{status: Status.RETURNED})),
        "rejected": Count(f"{prefix}pk", filter=Q(**{status: Status.REJECTED})),
    }


def count_per_hour(*, project: Project, hours: int = HOURS) -> list[tuple[datetime, int]]:
    """Counted answers per hour over the ``hours`` up to the latest one (for imported data that
    is not now), from the assignments alone: one counted assignment is one counted answer. Only
    answers that are data (``annotation.selectors.counted``); the worker table counts a worker's
    gold and training answers too, as work they did."""
    counted = Assignment.objects.filter(counted_as_data(project=project), project=project)
    latest = counted.aggregate(latest=Max("submitted_at"))["latest"]
    if latest is None:
        return []
    since = min(latest, timezone.now()) - timedelta(hours=hours)
    rows = (counted.filter(submitted_at__gte=since).annotate(hour=TruncHour("submitted_at"))
            .values("hour").annotate(n=Count("pk")).order_by("hour"))
    return [(r["hour"], r["n"]) for r in rows]


def tally_count(*, project: Project) -> Tally:
    """Count the project's aggregates now (what the refresh job stores; small projects' pages
    count the same figures live)."""
    # The rows hold status_counts()'s keys too, which the type checker cannot see through **.
    rows: Iterable[Mapping[str, Any]] = (Assignment.objects.filter(project=project).values("worker")
                                         .annotate(**status_counts(), last_at=Max("submitted_at")).order_by())
    medians = median_seconds(project=project)
    workers = [WorkerTally(r["worker"], r["submitted"], r["open"], r["expired"], r["returned"], r["rejected"],
                           r["last_at"], medians.get(r["worker"])) for r in rows]
    return Tally(counted_at=timezone.now(), workers=workers, per_hour=count_per_hour(project=project))


def median_seconds(*, project: Project, worker_ids: list[int] | None = None) -> dict[int, float]:
    """Median time per counted annotation of each of these workers (None: all of the
    project's). The database ranks each worker's times and returns only the one or two middle
    ones."""
    worker = F("assignment__worker_id")
    middle = (
        Annotation.objects.filter(
            assignment__project=project, assignment__status__in=Assignment.COUNTED_STATUSES, seconds__isnull=False,
            **({} if worker_ids is None else {"assignment__worker_id__in": worker_ids}),
        )
        .annotate(
            who=worker,
            position=Window(RowNumber(), partition_by=worker, order_by=F("seconds").asc()),
            n=Window(Count("pk"), partition_by=worker),
        )
        # Integer division: the middle row when n is odd, the middle two when it is even.
        .filter(position__gte=(F("n") + 1) / 2, position__lte=(F("n") + 2) / 2)
        # No default ordering: it would read each annotation's row instead of the index alone.
        .order_by()
        .values_list("who", "seconds")
    )
    values: dict[int, list[float]] = defaultdict(list)
    for who, seconds in middle:
        values[who].append(cast(float, seconds))  # seconds__isnull=False above
    return {who: round(sum(v) / len(v), 1) for who, v in values.items()}


def tally_key(*, project_id: int) -> str:
    """The cache key of a project's tally (``tally_refresh`` stores it there)."""
    return f"tally:{VERSION}:{project_id}"


def tally_queued_key(*, project_id: int) -> str:
    """The cache key of the marker that a refresh of the project's tally is queued."""
    return f"{tally_key(project_id=project_id)}:queued"


def tally_of(*, project: Project) -> Tally | None:
    """The project's last tally (None before the first), queueing a refresh when it is older
    than ``STAFF_TALLY_SECONDS`` and none is queued."""
    tally = cache.get(tally_key(project_id=project.pk))
    stale = tally is None or timezone.now() - tally.counted_at > timedelta(seconds=refresh_seconds())
    queued = tally_queued_key(project_id=project.pk)
    # A marker, so that one refresh per project is queued however many pages ask; it lapses
    # on its own if the job is lost.
    if stale and cache.add(queued, True, timeout=max(refresh_seconds(), 30) * 5):
        try:
            task_send(TALLY_TASK, project.pk)
        except Exception:  # the broker is down: the page shows what it has
            logger.exception("could not queue the tally of project %s", project.pk)
            cache.delete(queued)
    return tally
