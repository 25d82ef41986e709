"""Celery jobs of the crowd workflow (thin: they call a service and own retries). The services
queue them by name, so that they import nothing from here."""

from celery import shared_task

from annotation.models import ImportJob
from annotation.selectors.tallies import TALLY_TASK
from annotation.services import leases_expire
from annotation.services.imports import IMPORT_TASK, import_job_execute, import_uploads_tidy
from annotation.services.tallies import tally_refresh
from jobs.healing import jobs_heal
from jobs.tasks import run_as_task


@shared_task(name="annotation.expire_leases")
def expire_leases() -> int:
    """Return overdue assignments to the pool; scheduled every minute by celery beat."""
    return leases_expire()


@shared_task(name="annotation.reap_dead_jobs")
def reap_dead_jobs() -> int:
    """Send jobs whose worker died or whose message was lost to the queue again (or fail those
    out of attempts), and delete uploads no job needs any more; scheduled every 15 s by celery
    beat. Returns how many jobs it healed or failed."""
    reaped, resent = jobs_heal()
    import_uploads_tidy()
    return reaped + resent


@shared_task(bind=True, name=IMPORT_TASK, max_retries=3)
def run_import(self, job_id: int) -> str:
    """Import one uploaded file; safe to deliver twice."""
    return run_as_task(self, lambda: import_job_execute(job_id=job_id), model=ImportJob, pk=job_id)


@shared_task(name=TALLY_TASK)
def refresh_tally(project_id: int) -> int:
    """Count a large project's staff aggregates (annotation.services.tallies); queued by the pages."""
    tally = tally_refresh(project_id=project_id)
    return len(tally.workers) if tally else 0
