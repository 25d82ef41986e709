"""Celery jobs of the analysis side: thin wrappers that own retries; the services queue them by
name (``analysis.services.RUN_TASK``)."""

from celery import shared_task

from analysis.models import AnalysisRun
from analysis.services import RUN_TASK, analysis_run_execute
from jobs.tasks import run_as_task


@shared_task(bind=True, name=RUN_TASK, max_retries=3)
def run_analysis(self, run_id: int) -> str:
    """Execute one analysis run; safe to deliver twice."""
    return run_as_task(self, lambda: analysis_run_execute(run_id=run_id), model=AnalysisRun, pk=run_id)
