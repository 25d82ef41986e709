"""Training rounds: the qualification before real items and the re-calibration rounds staff
send workers to. A round holds the project's k training items (or what the worker has left),
is scored item by item as the worker answers (``quality.services.checks``) and closes when
all are answered: passed when right/answered reaches the pass mark.

- A qualification passed makes the worker active; failed with attempts left, the worker may
  start another round (``training_round_start``); failed with none left, they are screened out.
- A re-calibration round's result is kept on the worker's record; failing one sends the worker
  to review.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import Project, Standing, WorkerProfile
from annotation.services.audit import audit_record
from annotation.services.errors import WorkflowError
from quality.models import TrainingRound, WorkerStanding
from quality.services.check_serving import qualification_taken, round_open
from quality.services.check_serving import round_finish as training_round_finish
from quality.services.standing import policy_for, standing_for

Kind = TrainingRound.Kind


def training_round_start(*, project: Project, worker: User, kind: str, actor: User | None = None,
                         note: str = "", now: datetime | None = None) -> TrainingRound:
    """Open a training round of ``kind`` for the worker. A qualification round is refused when
    the project has none, the worker qualified already, is stopped, or took all their
    attempts; any round is refused while one is open or when no training item is left for the
    worker. Raises WorkflowError saying why."""
    now = now or timezone.now()
    if kind not in Kind.values:
        raise ValueError(f"unknown round kind {kind!r}; known: {', '.join(Kind.values)}")
    policy = policy_for(project=project)
    with transaction.atomic():
        # The worker's lock, as the engine takes it: a round is never opened twice at once.
        WorkerProfile.objects.get_or_create(user=worker)
        WorkerProfile.objects.select_for_update().filter(user=worker).first()
        standing = standing_for(project=project, worker=worker, lock=True,
                                initial=Standing.QUALIFYING if policy.qualification_items else Standing.ACTIVE)
        if TrainingRound.objects.filter(project=project, worker=worker, finished_at__isnull=True).exists():
            raise WorkflowError("A training round is already open for this worker.")
        if kind == Kind.QUALIFICATION:
            _may_qualify(project=project, worker=worker, standing=standing, attempts=policy.qualification_attempts,
                         items=policy.qualification_items)
        elif standing.state not in (Standing.ACTIVE, Standing.REVIEW):
            # A worker still qualifying takes the qualification: re-calibration is no way round it.
            raise WorkflowError(f"The worker is {standing.get_state_display().lower()} in this project: only "
                                "active workers and workers to review are sent to re-calibration.")
        try:
            with transaction.atomic():
                opened = round_open(project=project, worker=worker, kind=kind, policy=policy, now=now, sent_by=actor,
                                    note=note)
        except IntegrityError:
            raise WorkflowError("A training round is already open for this worker.") from None
        if opened is None:
            raise WorkflowError("No training item is left for this worker: there cannot be another round. "
                                "Add training items to the project to train them again.")
    return opened


def _may_qualify(*, project: Project, worker: User, standing: WorkerStanding, attempts: int, items: int) -> None:
    if not items:
        raise WorkflowError("This project has no qualification.")
    if standing.state != Standing.QUALIFYING:
        raise WorkflowError(f"The worker is {standing.get_state_display().lower()}, not qualifying.")
    if len(qualification_taken(project=project, worker=worker)) >= attempts:
        raise WorkflowError("No qualification attempt is left.")


def training_rounds_send(*, project: Project, actor: User | None, workers: Iterable[User] | None = None,
                         note: str = "") -> int:
    """Send workers back through a re-calibration round (everyone with a standing in the
    project when ``workers`` is None): each active worker or worker to review gets a new open
    round, unless they have one open or no training item left. Returns the rounds opened;
    the action goes to the audit log."""
    if workers is None:
        ids = list(WorkerStanding.objects.filter(project=project).values_list("worker_id", flat=True))
        chosen = list(User.objects.filter(pk__in=ids).order_by("pk"))
    else:
        chosen = list(workers)
    opened: list[str] = []
    for worker in chosen:
        try:
            training_round_start(project=project, worker=worker, kind=Kind.RECALIBRATION, actor=actor, note=note)
        except WorkflowError:
            continue
        opened.append(worker.username)
    audit_record(actor=actor, action="send_to_training", project=project,
                 target="everyone" if workers is None else ", ".join(w.username for w in chosen),
                 details={"rounds": len(opened), "workers": opened[:200], "note": note})
    return len(opened)


def training_round_count(*, training_round: TrainingRound, right: bool, now: datetime) -> TrainingRound:
    """Count one answered item of the (locked, open) round; close it once all are answered."""
    training_round.answered += 1
    training_round.right += int(right)
    training_round.save(update_fields=["answered", "right"])
    if training_round.answered >= training_round.items:
        training_round_finish(training_round=training_round, now=now)
    return training_round
