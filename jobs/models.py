"""Background jobs: what every job records.

A job row is the durable truth about a job (queued, running, done, failed, cancelled, with its
result or error). While a job runs, its live progress and heartbeat travel through the cache
(``jobs.live``), because a job that writes inside one long transaction (which on SQLite
holds the database's write lock) could not report through the database.
"""

import uuid
from typing import ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class Job(models.Model):
    """Fields every background job has. ``token`` changes with every attempt, so that an attempt
    that was given up (its worker died, or the job was cancelled or restarted) can never write
    over a newer one."""

    Status = JobStatus
    # The Celery task that runs this kind of job, by name: the scheduler sends a job whose
    # message was lost, or whose worker died, to it again without knowing the job's kind.
    task_name: ClassVar[str] = ""
    ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)
    FINISHED = (JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED)

    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    progress = models.FloatField(default=0.0, help_text="0 to 1.")
    stage = models.CharField(max_length=200, blank=True, help_text="What the job is doing now.")
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Attempts claimed by a worker since it was queued by a person.")
    queued_at = models.DateTimeField(default=timezone.now, help_text="When it was last sent to the job queue.")
    sends = models.PositiveSmallIntegerField(default=0, help_text="Times the scheduler sent it again, no worker having taken it.")
    token = models.UUIDField(default=uuid.uuid4, help_text="Identifies the current attempt.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last sign of life stored in the database.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def seconds(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE


def job_constraints(prefix: str) -> list[models.BaseConstraint]:
    return [
        models.CheckConstraint(condition=Q(progress__gte=0) & Q(progress__lte=1), name=f"{prefix}_progress_range"),
        models.CheckConstraint(condition=Q(status__in=JobStatus.values), name=f"{prefix}_status_valid"),
    ]
