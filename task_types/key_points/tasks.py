"""The key-point type's Celery job (thin: it calls a service and owns retries)."""

from celery import shared_task

from jobs.tasks import run_as_task
from task_types.key_points.evaluation import EVALUATE_TASK, evaluation_execute
from task_types.key_points.models import PredictionEvaluation


@shared_task(bind=True, name=EVALUATE_TASK, max_retries=3)
def run_evaluation(self, job_id: int) -> str:
    """Score one uploaded predictions file; safe to deliver twice."""
    return run_as_task(self, lambda: evaluation_execute(job_id=job_id), model=PredictionEvaluation, pk=job_id)
