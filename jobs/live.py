"""What a running attempt of a job publishes through the cache: its progress, stage and
heartbeat, and whether it was cancelled; and the job worker's own sign of life.

The cache, not the job's row, because a job that writes inside one long transaction (which on
SQLite holds the database's write lock) could not report through the database. A heartbeat
thread keeps beating while the job sits in one long computation or one long transaction.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.core.cache import cache

from jobs.models import Job

logger = logging.getLogger(__name__)
# How long live state stays in the cache without being refreshed.
LIVE_TTL = 6 * 3600
WORKER_KEY = "jobs:worker"


class JobCancelled(Exception):
    """The job was cancelled (or given up) while this attempt ran."""


def heartbeat_seconds() -> float:
    return float(settings.JOB_HEARTBEAT_SECONDS)


def dead_seconds() -> float:
    return float(settings.JOB_DEAD_SECONDS)


def live_key(job: Job) -> str:
    return f"job:{job._meta.label_lower}:{job.pk}:{job.token}"


def cancel_key(job: Job) -> str:
    return live_key(job) + ":cancel"


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
            if cache.get(cancel_key(self.job)):
                self._cancelled.set()
        except Exception:
            logger.warning("could not read the cancel flag of %s", self.job, exc_info=True)

    def _publish(self) -> None:
        with self._lock:
            state = {"progress": self._progress, "stage": self._stage, "beat": time.time()}
        try:
            cache.set(live_key(self.job), state, LIVE_TTL)
        except Exception:  # a cache outage must not kill the job; it only hides its progress
            logger.warning("could not store the live state of %s", self.job, exc_info=True)

    def _beat(self) -> None:
        while not self._stop.wait(heartbeat_seconds()):
            self._publish()
            self._look_for_cancel()


def worker_beat(hostname: str) -> None:
    """A job worker says it is alive (every heartbeat, from its own thread)."""
    cache.set(WORKER_KEY, {"host": hostname, "at": time.time()}, None)
