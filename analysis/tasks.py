"""Celery jobs of the analysis side: thin wrappers that own retries."""

from celery import shared_task

from analysis.services import (
    RunBusy,
    TransientFault,
    analysis_run_execute,
    analysis_run_fail,
    analysis_runs_reap,
)

MAX_RETRIES = 3


@shared_task(bind=True, name="analysis.run", max_retries=MAX_RETRIES)
def run_analysis(self, run_id: int) -> str:
    """Execute one analysis run; safe to deliver twice."""
    try:
        run = analysis_run_execute(run_id=run_id)
    except RunBusy as busy:
        # Another worker holds it; if that worker died, its deadline passes and this one takes over.
        raise self.retry(countdown=max(busy.retry_in, 1.0), max_retries=None) from None
    except TransientFault as exc:
        if self.request.retries >= MAX_RETRIES:
            analysis_run_fail(run_id=run_id, error=f"gave up after {MAX_RETRIES} retries: {exc}")
            return "failed"
        raise self.retry(countdown=2 ** self.request.retries) from exc
    return "finished earlier" if run is None else run.status


@shared_task(name="analysis.reap_stuck_runs")
def reap_stuck_runs() -> int:
    return analysis_runs_reap()
