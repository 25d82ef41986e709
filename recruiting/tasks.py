"""Celery jobs of recruiting (thin: they call a service and own retries). Their names are the
ones they had in the engine app, so that queued messages and the beat schedule still find them."""

from celery import shared_task

from jobs.tasks import run_as_task
from recruiting.models import BonusPayJob, ProlificSyncJob
from recruiting.services.bonus_payments.payments import BONUS_PAY_TASK, bonus_pay_job_execute
from recruiting.services.prolific.sync import (
    SYNC_TASK,
    prolific_polls_due,
    prolific_sync_job_execute,
)


@shared_task(name="annotation.prolific_poll")
def prolific_poll() -> int:
    """Queue a sync of every linked Prolific study whose poll interval has passed; scheduled by
    celery beat every PROLIFIC_POLL_TICK_SECONDS. Returns how many were queued."""
    return prolific_polls_due()


@shared_task(bind=True, name=SYNC_TASK, max_retries=3)
def prolific_sync(self, job_id: int) -> str:
    """Read one linked study's submissions from Prolific and apply them; safe to deliver twice."""
    return run_as_task(self, lambda: prolific_sync_job_execute(job_id=job_id), model=ProlificSyncJob, pk=job_id)


@shared_task(bind=True, name=BONUS_PAY_TASK, max_retries=3)
def run_bonus_pay(self, job_id: int) -> str:
    """Pay or reconcile bonuses through Prolific; safe to deliver twice (each step reads its state)."""
    return run_as_task(self, lambda: bonus_pay_job_execute(job_id=job_id), model=BonusPayJob, pk=job_id)
