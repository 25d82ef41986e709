"""Celery jobs of the crowd workflow (thin: they call a service and own retries)."""

from celery import shared_task

from annotation.import_jobs import TransientImportFault, import_job_execute, import_uploads_tidy
from annotation.jobs import JobBusy, job_give_up, jobs_reap_all
from annotation.models import ImportJob
from annotation.services import leases_expire

MAX_RETRIES = 3


@shared_task(name="annotation.expire_leases")
def expire_leases() -> int:
    """Return overdue assignments to the pool; scheduled every minute by celery beat."""
    return leases_expire()


@shared_task(name="annotation.reap_dead_jobs")
def reap_dead_jobs() -> int:
    """Mark running jobs whose worker died as failed, and delete uploads no job needs any more;
    scheduled every 15 s by celery beat."""
    reaped = jobs_reap_all()
    import_uploads_tidy()
    return reaped


@shared_task(bind=True, name="annotation.import", max_retries=MAX_RETRIES)
def run_import(self, job_id: int) -> str:
    """Import one uploaded file; safe to deliver twice."""
    try:
        job = import_job_execute(job_id=job_id)
    except JobBusy as busy:
        raise self.retry(countdown=busy.retry_in, max_retries=None) from None
    except TransientImportFault as exc:
        if self.request.retries >= MAX_RETRIES:
            job_give_up(ImportJob, job_id, f"gave up after {MAX_RETRIES} retries: {exc}")
            return "failed"
        raise self.retry(countdown=2 ** self.request.retries) from exc
    return "finished earlier" if job is None else job.status
