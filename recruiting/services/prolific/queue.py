"""Queueing a sync of a linked Prolific study (a ``ProlificSyncJob``), one at a time per study:
from the scheduler, "Sync now", and at once when a worker of a linked project is screened out
(so that Prolific hears of it without waiting for the next poll)."""

from __future__ import annotations

import logging

from django.contrib.auth.models import User
from django.db import transaction

from jobs.models import Job
from jobs.services import job_enqueue
from jobs.tasks import task_send
from recruiting.models import ProlificStudy, ProlificSyncJob

logger = logging.getLogger(__name__)
SYNC_TASK = ProlificSyncJob.task_name


def _send(pk: int) -> None:
    task_send(SYNC_TASK, pk)


def prolific_sync_queue(*, study: ProlificStudy, actor: User | None = None) -> ProlificSyncJob:
    """Queue a sync of the study, or return the one already queued or running."""
    with transaction.atomic():
        ProlificStudy.objects.select_for_update().filter(pk=study.pk).first()
        active = ProlificSyncJob.objects.filter(study=study, status__in=Job.ACTIVE).order_by("-pk").first()
        if active is not None:
            return active
        job = ProlificSyncJob.objects.create(
            study=study, created_by=actor if actor is not None and actor.is_authenticated else None)
        job_enqueue(job=job, send=_send)
    return job


def prolific_sync_soon(*, project_id: int) -> None:
    """Once the current transaction commits, queue a sync of the project's study if it has one.
    A job queue that is away is no error of the request that asked: the next poll sends it."""

    def queue() -> None:
        study = ProlificStudy.objects.filter(project_id=project_id).first()
        if study is None:
            return
        try:
            prolific_sync_queue(study=study)
        except Exception:
            logger.warning("could not queue a sync of %s; the next poll sends its screen-outs", study, exc_info=True)

    transaction.on_commit(queue)
