"""Evaluations of a system's predictions (track 1): an uploaded predictions JSON
``{"arg_id": {"key_point_id": score, …}, …}`` scored against the project's labels with the shared
task's strict and relaxed mean average precision (``analysis.methods.keypoint_eval``).

A web request never scores a large file itself: it stores the upload, queues a job and returns;
the job (``jobs.services.job_execute``) reads the file, scores it and stores the result. A small
upload (up to ``IMPORT_INLINE_MAX_BYTES``) is scored at once by the same code.
"""

from __future__ import annotations

import uuid
from typing import IO, Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction

from annotation.models import Project
from annotation.task_types import limits
from annotation.value_checks import value_problem
from jobs.live import Attempt
from jobs.services import (
    JobFailed,
    JobOutcome,
    job_cancel,
    job_enqueue,
    job_execute,
    job_upload_forget,
)
from jobs.tasks import task_send
from runtime.unavailable import ServiceUnavailable
from task_types.key_points.models import PredictionEvaluation
from task_types.key_points.services import key_points_project

# The Celery task that runs an evaluation (task_types.key_points.tasks.run_evaluation).
EVALUATE_TASK = PredictionEvaluation.task_name
# What a failed evaluation's message begins with.
NOT_SCORED = "The predictions could not be scored: "


def _send(job_id: int) -> None:
    task_send(EVALUATE_TASK, job_id)


def evaluation_upload(*, project: Project, upload: IO[bytes], filename: str, size: int, user: Any = None,
                      inline: bool | None = None, ties: str = PredictionEvaluation.Ties.OFFICIAL) -> PredictionEvaluation:
    """Store an uploaded predictions file and score it: at once when it is small (or ``inline``
    says so), else in a queued job; tied scores are settled by ``ties`` (``official`` or
    ``file-order``). Returns the evaluation (finished, or queued)."""
    key_points_project(project=project)
    if ties not in PredictionEvaluation.Ties.values:
        raise ValueError(f"ties must be one of {', '.join(PredictionEvaluation.Ties.values)}, got {ties!r}")
    stored = default_storage.save(f"key_points/{uuid.uuid4().hex}.json", upload)
    run_now = size <= settings.IMPORT_INLINE_MAX_BYTES if inline is None else inline
    try:
        with transaction.atomic():
            evaluation = PredictionEvaluation.objects.create(
                project=project, filename=(filename or "predictions.json")[:255], size=size, stored_name=stored, ties=ties,
                created_by=user if user is not None and user.is_authenticated else None)
            if not run_now:
                job_enqueue(job=evaluation, send=_send)
    except ServiceUnavailable:
        # The job was stored (and failed, the queue being away): it keeps its upload, so that
        # it can be restarted.
        raise
    except Exception:
        default_storage.delete(stored)
        raise
    if run_now:
        return evaluation_execute(job_id=evaluation.pk) or evaluation
    return evaluation


def score_predictions(*, project: Project, raw: bytes, progress: Any = None,
                      ties: str = PredictionEvaluation.Ties.OFFICIAL) -> tuple[str, dict[str, Any]]:
    """(labels source, the evaluation as a dict) of predictions given as JSON bytes, tied scores
    settled by ``ties``; raises ValueError naming what is wrong with them."""
    from analysis.methods.keypoint_eval import evaluate, parse_predictions
    from task_types.key_points.selectors import evaluation_data

    report = progress or (lambda fraction, stage: None)
    report(0.05, "reading the predictions")
    limit = settings.IMPORT_MAX_DECOMPRESSED_BYTES
    if len(raw) > limit:
        raise ValueError(f"the predictions file is larger than {limit // 2**20} MB, the limit for imports "
                         "(IMPORT_MAX_DECOMPRESSED_MB)")
    predictions = parse_predictions(raw)
    # Ids reach the stored result: one the database would refuse (a NUL) is refused here, by name.
    problem = value_problem(predictions)
    if problem:
        raise ValueError(f"predictions: {problem[0] or 'the file'}: {problem[1]}")
    for arg_id, scores in predictions.items():
        for named, value in (("argument", arg_id), *(("key point", kp_id) for kp_id in scores)):
            if len(value) > limits.ID:
                raise ValueError(f"predictions: {named} '{value[:40]}…': the id is {len(value):,} characters long; "
                                 f"at most {limits.ID} fit")
    report(0.3, "reading the project's arguments, key points and labels")
    data = evaluation_data(project=project)
    if data.labels.empty:
        raise ValueError("the project has no labels to score against: import labels.csv with the items, "
                         "or collect annotations first")
    report(0.6, "scoring")
    result = evaluate(arguments=data.arguments, key_points=data.key_points, labels=data.labels,
                      predictions=predictions, ties=ties).to_dict()
    return data.source, result


def evaluation_execute(*, job_id: int) -> PredictionEvaluation | None:
    """Run a queued evaluation; None if it was finished already. Raises JobBusy when a live
    worker runs it, TransientFault after putting it back in the queue (its upload kept)."""
    return job_execute(model=PredictionEvaluation, pk=job_id, work=_score_stored, failure=NOT_SCORED,
                       cleanup=lambda job: job_upload_forget(job=job))


def _score_stored(job: PredictionEvaluation, attempt: Attempt) -> JobOutcome:
    try:
        with default_storage.open(job.stored_name, "rb") as stored:
            raw = stored.read()
        source, result = score_predictions(project=job.project, raw=raw, progress=attempt.progress, ties=job.ties)
    except ValueError as exc:  # what is wrong with the predictions, in words
        raise JobFailed(f"{NOT_SCORED}{exc}") from exc
    return JobOutcome(fields={"result": result, "labels": source})


def evaluation_cancel(*, job: PredictionEvaluation, user: Any = None) -> PredictionEvaluation:
    job = job_cancel(job=job, by=user.get_username() if user is not None and user.is_authenticated else "")
    if job.started_at is None:
        job_upload_forget(job=job)
    return job
