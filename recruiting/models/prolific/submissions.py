"""What the platform knows of a linked Prolific study's submissions, the webhook deliveries it
took, and the background jobs that read a study's submissions from Prolific.

Fields and constraints only; every change goes through ``recruiting.services.prolific.sync`` and
its siblings.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from jobs.models import Job, job_constraints


class SubmissionStatus(models.TextChoices):
    """A submission's status as Prolific names it."""

    RESERVED = "RESERVED", "Reserved"
    ACTIVE = "ACTIVE", "Active"
    AWAITING_REVIEW = "AWAITING REVIEW", "Awaiting review"
    APPROVED = "APPROVED", "Approved"
    PARTIALLY_APPROVED = "PARTIALLY APPROVED", "Partially approved"
    REJECTED = "REJECTED", "Rejected"
    RETURNED = "RETURNED", "Returned"
    TIMED_OUT = "TIMED-OUT", "Timed out"
    SCREENED_OUT = "SCREENED OUT", "Screened out"
    UNKNOWN = "UNKNOWN", "Unknown"


class ProlificSubmission(models.Model):
    """One participant's submission to a linked study, as last read from Prolific (by a poll or a
    webhook), with what the platform did about it."""

    Status = SubmissionStatus
    # The participant left the study: their open assignments go back to the pool at once.
    ENDED = (SubmissionStatus.RETURNED, SubmissionStatus.TIMED_OUT, SubmissionStatus.REJECTED)
    # Statuses no decision can change any more.
    FINAL = (SubmissionStatus.APPROVED, SubmissionStatus.PARTIALLY_APPROVED, SubmissionStatus.REJECTED,
             SubmissionStatus.RETURNED, SubmissionStatus.TIMED_OUT, SubmissionStatus.SCREENED_OUT)

    class DecidedHow(models.TextChoices):
        STAFF = "staff", "By a staff member on the platform"
        AUTO = "auto", "By the study's automatic rule"
        PROLIFIC = "prolific", "On Prolific"

    study = models.ForeignKey("recruiting.ProlificStudy", on_delete=models.CASCADE, related_name="submissions")
    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="prolific_submissions")
    submission_id = models.CharField(max_length=100, unique=True, help_text="Prolific's id (SESSION_ID).")
    participant_id = models.CharField(max_length=100, help_text="Prolific's participant id (PROLIFIC_PID).")
    # The platform account of the participant (WorkerProfile source "prolific"); empty until
    # they arrive through the study link.
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="prolific_submissions")
    status = models.CharField(max_length=20, choices=SubmissionStatus.choices, default=SubmissionStatus.ACTIVE)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    seen_at = models.DateTimeField(help_text="When Prolific last told the platform of it.")
    freed_at = models.DateTimeField(null=True, blank=True,
                                    help_text="When the participant's open assignments went back to the pool.")
    freed_assignments = models.PositiveIntegerField(default=0)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    decided_how = models.CharField(max_length=10, choices=DecidedHow.choices, blank=True)
    screen_out_sent_at = models.DateTimeField(null=True, blank=True,
                                              help_text="When the platform asked Prolific to screen it out.")
    last_error = models.CharField(max_length=500, blank=True, help_text="Prolific's answer to the last refused call.")

    class Meta:
        db_table = "annotation_prolificsubmission"
        ordering = ["-started_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=SubmissionStatus.values), name="prolific_submission_status"),
        ]
        indexes = [models.Index(fields=["project", "worker"], name="prolific_submission_worker"),
                   models.Index(fields=["study", "status"], name="prolific_submission_status_ix")]

    def __str__(self) -> str:
        return f"submission {self.submission_id} ({self.status})"


class ProlificWebhookEvent(models.Model):
    """A webhook delivery the platform accepted, once per event id: a delivery sent again is
    recognised and not applied twice."""

    event_id = models.CharField(max_length=200, unique=True)
    event_type = models.CharField(max_length=100)
    submission_id = models.CharField(max_length=100, blank=True)
    status = models.CharField(max_length=20, blank=True)
    sent_at = models.DateTimeField(help_text="Prolific's timestamp of the delivery.")
    received_at = models.DateTimeField()
    outcome = models.CharField(max_length=300, blank=True)

    class Meta:
        db_table = "annotation_prolificwebhookevent"
        ordering = ["-received_at", "-id"]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id}"


class ProlificSyncJob(Job):
    """One read of a linked study's submissions from Prolific and what followed: applying their
    statuses, screen-outs not yet sent, and the study's automatic decisions."""

    task_name = "annotation.prolific_sync"

    study = models.ForeignKey("recruiting.ProlificStudy", on_delete=models.CASCADE, related_name="sync_jobs")
    result = models.JSONField(null=True, blank=True)

    class Meta:
        db_table = "annotation_prolificsyncjob"
        ordering = ["-created_at", "-id"]
        constraints = job_constraints("prolificsyncjob")
        indexes = [models.Index(fields=["study", "-created_at"], name="prolificsync_study_created")]

    def __str__(self) -> str:
        return f"sync of {self.study} ({self.status})"
