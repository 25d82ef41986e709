"""What the assignment engine hands a worker besides real items: their standing in the project
and the project's quality policy (read together, once per request), the open training round
and its items, and gold questions drawn at the project's rate.

Read and written under the worker's profile lock (``engine._profile_and_open``): one request
per worker at a time, so a round is started once and its items are counted without races.
Nothing here tells the worker what an item is; the purpose is stored with the assignment.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Subquery

from annotation.models import Assignment, Item, ItemKind, Project, Purpose, Standing
from annotation.providers import provider_of
from annotation.quality_port import WorkerQuality
from quality.models import CheckResult, GoldAnswer, QualityPolicy, TrainingRound, WorkerStanding

# Drawn per claim: is this one a gold question? A module attribute so that tests can fix it.
draw = random.SystemRandom().random
# Which of the worker's training items left comes next (``training_pick``).
place = random.SystemRandom().random


def _policy_of(project: Project) -> QualityPolicy:
    found = QualityPolicy.objects.filter(project_id=project.pk).first()
    return found if found is not None else QualityPolicy(project=project)


def worker_quality(*, project: Project, worker: User, now: datetime) -> WorkerQuality:
    """The worker's standing with the project's policy and the id of their open round, in one
    indexed read; made on the worker's first request (``qualifying`` when the project asks for a
    qualification, else ``active``). The open round itself is read only when there is one."""
    open_round = TrainingRound.objects.filter(project_id=project.pk, worker_id=worker.pk, finished_at__isnull=True)
    rows = (WorkerStanding.objects.select_related("project__quality")
            .filter(project_id=project.pk, worker_id=worker.pk)
            .annotate(open_round_id=Subquery(open_round.values("pk")[:1])))
    standing = rows.first()
    if standing is None:
        policy = _policy_of(project)
        initial = Standing.QUALIFYING if policy.qualification_items > 0 else Standing.ACTIVE
        try:
            with transaction.atomic():
                WorkerStanding.objects.create(project=project, worker=worker, state=initial, changed_at=now)
        except IntegrityError:
            pass  # made meanwhile (by a staff action)
        standing = rows.get()
    try:
        policy = standing.project.quality
    except QualityPolicy.DoesNotExist:
        policy = QualityPolicy(project=project)
    round_id = standing.__dict__.pop("open_round_id")
    return WorkerQuality(standing=standing, policy=policy,
                         open_round=TrainingRound.objects.get(pk=round_id) if round_id else None)


def training_left(*, project: Project, worker: User) -> int:
    """Training items of the project this worker never had."""
    never_had = ~Exists(Assignment.objects.filter(item_id=OuterRef("pk"), worker_id=worker.pk))
    return Item.objects.filter(never_had, project=project, kind=ItemKind.TRAINING).count()


def training_pick(*, project: Project, worker: User) -> Item | None:
    """The worker's next training item, drawn at random (``place``) from the project's training
    items they never had, locked as it is read (``SKIP LOCKED`` on PostgreSQL).

    Drawn per worker, so that one account's round tells another little about its own: with a
    pool of n items and rounds of k, two workers share k·k/n items on average instead of all k.
    An item a worker had in an earlier round is never drawn again (one assignment per item and
    worker), so each further round is of items they have not seen."""
    never_had = ~Exists(Assignment.objects.filter(item_id=OuterRef("pk"), worker_id=worker.pk))
    pool = Item.objects.filter(never_had, project=project, kind=ItemKind.TRAINING, n_active__lt=F("redundancy"))
    ids = list(pool.order_by("position", "id").values_list("pk", flat=True))
    if not ids:
        return None
    chosen = ids[min(int(place() * len(ids)), len(ids) - 1)]
    locked = pool.select_for_update(skip_locked=True, of=("self",))
    # Another request holds the drawn row (PostgreSQL only): any other left will do.
    return locked.filter(pk=chosen).first() or locked.order_by("position", "id").first()


# How a training item in an open round can be left without an answer (``CheckResult.method``).
UNANSWERED = ("skipped", "flagged", "expired")


def round_count_unanswered(*, assignment_ids: Sequence[int], how: str, now: datetime) -> int:
    """Count the training items among ``assignment_ids`` that were just skipped, flagged or
    left to expire (``how``) as answered and wrong in their worker's open round, with a check
    result that says how; the round closes when all its items are settled. Otherwise skipping
    the hard items of a round would replace them with easier ones for free. Returns the items
    counted; task and gold assignments are left alone."""
    if how not in UNANSWERED:
        raise ValueError(f"unknown way to leave an item unanswered {how!r}; known: {', '.join(UNANSWERED)}")
    rows = list(Assignment.objects.filter(pk__in=list(assignment_ids), purpose=Purpose.TRAINING,
                                          check_result__isnull=True)
                .order_by("pk").values_list("pk", "project_id", "worker_id", "item_id", "assigned_at"))
    counted = 0
    for pk, project_id, worker_id, item_id, assigned_at in rows:
        r = (TrainingRound.objects.select_for_update()
             .filter(project_id=project_id, worker_id=worker_id, finished_at__isnull=True,
                     started_at__lte=assigned_at).first())
        if r is None:
            continue
        expected = GoldAnswer.objects.filter(item_id=item_id).values_list("answer", flat=True).first()
        CheckResult.objects.create(assignment_id=pk, project_id=project_id, worker_id=worker_id,
                                   purpose=Purpose.TRAINING, round=r, score=0.0, right=False, method=how,
                                   expected=expected if expected is not None else {}, scored_at=now)
        r.answered += 1
        r.save(update_fields=["answered"])
        if r.answered >= r.items:
            round_finish(training_round=r, now=now)
        counted += 1
    return counted


def qualification_taken(*, project: Project, worker: User) -> list[TrainingRound]:
    """The worker's qualification rounds in the project, first to last."""
    return list(TrainingRound.objects.filter(project=project, worker=worker, kind=TrainingRound.Kind.QUALIFICATION)
                .order_by("number"))


def round_open(*, project: Project, worker: User, kind: str, policy: QualityPolicy, now: datetime,
               sent_by: User | None = None, note: str = "") -> TrainingRound | None:
    """Open a new round of ``kind`` for the worker: the project's k training items (its
    qualification size; at least 1), or as many as the worker has left; None when none is left.
    The caller holds the worker's lock or accepts that a concurrent open raises IntegrityError."""
    k = max(policy.qualification_items, 1)
    left = training_left(project=project, worker=worker)
    if left == 0:
        return None
    last = (TrainingRound.objects.filter(project=project, worker=worker).order_by("-number")
            .values_list("number", flat=True).first())
    return TrainingRound.objects.create(
        project=project, worker=worker, kind=kind, number=(last or 0) + 1, items=min(k, left),
        pass_mark=policy.qualification_pass, started_at=now, sent_by=sent_by, note=note[:500])


def _standing_move(*, project: Project, worker: User, state: str, reason: str, now: datetime) -> None:
    """Move the worker's standing as a round's result says. The worker holds no open assignment
    at that moment (the round's last answer was just stored, or no item was left to hand out),
    so there is nothing to return to the pool; the round itself records why."""
    WorkerStanding.objects.filter(project=project, worker=worker).update(state=state, reason=reason[:500],
                                                                         changed_at=now)
    if state == Standing.SCREENED_OUT:
        # The project's marketplace hears of it (Prolific: by a sync of its linked study).
        provider = provider_of(project)
        if provider is not None:
            provider.worker_screened_out(project=project, worker=worker)


def round_finish(*, training_round: TrainingRound, now: datetime) -> TrainingRound:
    """Close a round (all its items answered, or no training item left for the rest) and move
    the worker as its result says: a qualification passed makes them active, one failed with no
    attempt (or no training item) left for another screens them out; a failed re-calibration
    sends an active worker to review."""
    r = training_round
    # Judged on the round's planned items: an item skipped, flagged or left to expire counts as
    # not right, so answering only the sure ones cannot pass.
    r.passed = r.right / r.items >= r.pass_mark
    r.finished_at = now
    r.save(update_fields=["passed", "finished_at"])
    project, worker = r.project, r.worker
    state = (WorkerStanding.objects.select_for_update().filter(project=project, worker=worker)
             .values_list("state", flat=True).first())
    score = f"{r.right} of {r.answered} right"
    if r.kind == TrainingRound.Kind.QUALIFICATION:
        if state != Standing.QUALIFYING:
            return r
        if r.passed:
            _standing_move(project=project, worker=worker, state=Standing.ACTIVE, now=now,
                           reason=f"Passed qualification round {r.number} ({score})")
        elif len(qualification_taken(project=project, worker=worker)) >= _policy_of(project).qualification_attempts:
            _standing_move(project=project, worker=worker, state=Standing.SCREENED_OUT, now=now,
                           reason=f"Failed the qualification ({score} in round {r.number})")
        elif training_left(project=project, worker=worker) == 0:
            # Attempts are left but no training item for another round: the worker is told now,
            # with the screened-out code, instead of being offered a round that cannot open.
            _standing_move(project=project, worker=worker, state=Standing.SCREENED_OUT, now=now,
                           reason=f"Failed the qualification ({score} in round {r.number}); no training item "
                                  "is left for another attempt")
    elif not r.passed and state == Standing.ACTIVE:
        _standing_move(project=project, worker=worker, state=Standing.REVIEW, now=now,
                       reason=f"Failed re-calibration round {r.number} ({score})")
    return r
