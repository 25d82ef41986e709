"""Celery jobs of the analysis side: thin wrappers that own retries."""

from celery import shared_task

from analysis.models import AnalysisRun
from analysis.services import TransientFault, analysis_run_execute
from annotation.jobs import JobBusy, job_give_up

MAX_RETRIES = 3


@shared_task(bind=True, name="analysis.run", max_retries=MAX_RETRIES)
def run_analysis(self, run_id: int) -> str:
    """Execute one analysis run; safe to deliver twice."""
    try:
        run = analysis_run_execute(run_id=run_id)
    except JobBusy as busy:
        # Another worker holds it; if that worker died, its heartbeat stops and this one takes over.
        raise self.retry(countdown=busy.retry_in, max_retries=None) from None
    except TransientFault as exc:
        if self.request.retries >= MAX_RETRIES:
            job_give_up(AnalysisRun, run_id, f"gave up after {MAX_RETRIES} retries: {exc}")
            return "failed"
        raise self.retry(countdown=2 ** self.request.retries) from exc
    return "finished earlier" if run is None else run.status
