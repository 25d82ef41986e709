"""A worker's standing in a project (active, qualifying, to review, blocked, screened out) and
the project's quality policy: read and changed here only.

Blocking in a project returns the worker's open assignment there to the pool at once (the
slot goes to someone else); a blocked worker gets no items and no submission is accepted. While
the project leaves blocked workers' answers out (``QualityPolicy.blocked_answers_excluded``, the
default), a block takes the worker's answers out of the data and an unblock brings them back
(``quality.services.blocked_answers``), each with an audit entry, whoever decided.

A worker sent to review keeps their open assignment (the item on their screen may be finished)
and, while the project pauses work under review (``QualityPolicy.review_pauses_work``, the
default), gets no new item until staff decide (the engine refuses it).
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import Assignment, Project, Standing
from annotation.quality_port import STOPPED
from annotation.services.audit import audit_record
from annotation.services.engine import set_status
from quality.models import WorkerStanding
from quality.selectors.settings import gold_policy, policy_for
from quality.services.blocked_answers import blocked_answers_move

Status = Assignment.Status
__all__ = ["STOPPED", "gold_policy", "policy_for", "standing_activate", "standing_for", "standing_set"]

# States in which the worker gets no items in the project.


def standing_for(*, project: Project, worker: User, lock: bool = False,
                 initial: str = Standing.ACTIVE) -> WorkerStanding:
    """The worker's standing row in the project, made (in state ``initial``) on first use; with
    ``lock``, held until the transaction ends."""
    rows = WorkerStanding.objects.filter(project=project, worker=worker)
    if lock:
        rows = rows.select_for_update()
    found = rows.first()
    if found is None:
        try:
            with transaction.atomic():
                WorkerStanding.objects.create(project=project, worker=worker, state=initial, changed_at=timezone.now())
        except IntegrityError:
            pass  # made meanwhile by a concurrent request
        found = rows.get()
    return found


def standing_set(*, project: Project, worker: User, state: str, reason: str = "", actor: User | None = None,
                 now: datetime | None = None, audit: bool = True) -> WorkerStanding:
    """Move the worker to ``state`` in the project. Blocking or screening out returns their
    open assignment in the project to the pool. Staff changes (``actor``) go to the audit log;
    a rule's are recorded as its decision instead (``audit=False``)."""
    now = now or timezone.now()
    if state not in Standing.values:
        raise ValueError(f"unknown standing {state!r}; known: {', '.join(Standing.values)}")
    with transaction.atomic():
        standing = standing_for(project=project, worker=worker, lock=True)
        before = standing.state
        standing.state, standing.reason, standing.changed_at = state, reason[:500], now
        standing.save(update_fields=["state", "reason", "changed_at"])
        returned = 0
        if state in STOPPED:
            open_ones = list(Assignment.objects.select_for_update()
                             .filter(project=project, worker=worker, status=Status.ASSIGNED).order_by("pk"))
            returned = set_status(assignments=open_ones, new=Status.RETURNED, now=now)
        if audit and before != state:
            audit_record(actor=actor, project=project, action=f"standing:{state}", target=f"worker {worker.username}",
                         details={"from": before, "to": state, "reason": reason, "returned_items": returned})
        if Standing.BLOCKED in (before, state) and before != state and policy_for(project=project).blocked_answers_excluded:
            # Recorded whoever decided (a rule's decision too): the data changed.
            blocked_answers_move(project=project, worker=worker, excluded=state == Standing.BLOCKED, actor=actor,
                                 reason=reason)
    return standing


def standing_activate(*, standing_id: int, now: datetime) -> None:
    """The worker goes on as active, in one update and without an audit entry: the engine's
    answer when a worker's project dropped its qualification before they took it."""
    WorkerStanding.objects.filter(pk=standing_id).update(state=Standing.ACTIVE, changed_at=now)
