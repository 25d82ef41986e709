"""The assignment engine: handing items out, returning them, expiring leases.

Invariants the database enforces and these functions rely on:
- one assignment per (item, worker), whatever its status: nobody sees an item twice;
- at most one open ("assigned") assignment per (project, worker);
- ``Item.n_active`` (assignments holding a slot) never exceeds ``Item.redundancy``.
Real claims take only real items; gold questions (at the project's rate) and training items
(in a training round) are handed out by the same claim and told apart only by the stored
``Assignment.purpose`` (``quality.services.check_serving``).
Every change of an assignment's status goes through ``set_status`` so that the slot counter
moves with it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Subquery
from django.utils import timezone

import annotation.quality_port as quality_port
import annotation.services.gold_place as gold_place
from annotation.models import (
    Assignment,
    Item,
    ItemKind,
    Project,
    Purpose,
    Standing,
    WorkerProfile,
)
from annotation.providers import provider_of
from annotation.quality_port import (
    QUALIFICATION,
    STOPPED,
    RoundRecord,
    WorkerQuality,
    qualification_taken,
    round_finish,
    round_open,
    standing_activate,
    worker_quality,
)
from annotation.services.errors import WorkflowError
from annotation.task_types import project_task_type
from annotation.task_types.shown_order import assignment_seed, order_for

Status = Assignment.Status
SLOT = set(Assignment.SLOT_STATUSES)


def set_status(*, assignments: Sequence[Assignment] | Any, new: str, now: datetime, **fields: Any) -> int:
    """Move assignments to ``new`` and their items' slot counters with them.

    Items are locked in id order so that concurrent callers cannot deadlock.
    """
    rows = list(assignments)
    if not rows:
        return 0
    delta_by_item: dict[int, int] = defaultdict(int)
    for a in rows:
        delta = (new in SLOT) - (a.status in SLOT)
        if delta:
            delta_by_item[a.item_id] += delta
    ids = [a.pk for a in rows]
    Assignment.objects.filter(pk__in=ids).update(status=new, **fields)
    if delta_by_item:
        locked = list(
            Item.objects.filter(pk__in=list(delta_by_item)).order_by("pk").select_for_update().values_list("pk", flat=True)
        )
        by_delta: dict[int, list[int]] = defaultdict(list)
        for item_id in locked:
            by_delta[delta_by_item[item_id]].append(item_id)
        for delta, item_ids in by_delta.items():
            Item.objects.filter(pk__in=item_ids).update(n_active=F("n_active") + delta)
    for a in rows:
        a.status = new
        for key, value in fields.items():
            setattr(a, key, value)
    return len(rows)


def leases_expire(*, project: Project | None = None, now: datetime | None = None, limit: int = 5000) -> int:
    """Return overdue assignments to the pool; safe to run from many processes at once."""
    now = now or timezone.now()
    with transaction.atomic():
        stale = Assignment.objects.filter(status=Status.ASSIGNED, expires_at__lte=now)
        if project is not None:
            stale = stale.filter(project=project)
        rows = list(
            stale.order_by("pk").select_for_update(skip_locked=True).only("id", "item_id", "status")[:limit]
        )
        expired = set_status(assignments=rows, new=Status.EXPIRED, now=now)
        # A training item left to expire counts as a wrong answer in its round.
        quality_port.round_count_unanswered(assignment_ids=[a.pk for a in rows], how="expired", now=now)
        return expired


@dataclass(frozen=True)
class NextResult:
    assignment: Assignment | None
    resumed: bool = False
    # Why there is no assignment: "done", "quota", "blocked" (the account, or in this project),
    # "screened_out" (failed the qualification), "review" (paused until staff decide),
    # "qualification_failed" (may try again),
    # "left_study" (returned or timed out on the marketplace, or rejected there),
    # "no_training" (a round is due but no training item is left for the worker), "inactive",
    # "not_member".
    reason: str = ""
    # The worker's training round: open while they take it (their assignment is one of its
    # items), or the failed qualification a "qualification_failed" refers to.
    round: RoundRecord | None = None
    # Qualification rounds the worker may still take ("qualification_failed").
    attempts_left: int = 0


def can_work_on(*, project: Project, worker: User) -> bool:
    return project.open_to_all or project.members.filter(pk=worker.pk).exists()


def worker_profile(*, worker: User, lock: bool = False) -> WorkerProfile:
    """The worker's profile (made on first use); with ``lock``, held until the transaction ends."""
    rows = WorkerProfile.objects.filter(user=worker)
    if lock:
        rows = rows.select_for_update()
    profile = rows.first()
    if profile is None:
        WorkerProfile.objects.get_or_create(user=worker)
        profile = rows.get()
    return profile


def assignment_next(*, project: Project, worker: User, now: datetime | None = None) -> NextResult:
    """The worker's open assignment in the project, or a new one on an item with a free slot
    that this worker never had.

    Overdue leases are not swept on every request: the worker's own overdue lease is returned
    here, everyone else's by the beat job (``leases_expire`` every minute) and, when no item
    with a free slot is left, by this call before it looks once more, so an item held by an
    abandoned lease is never out of reach."""
    now = now or timezone.now()
    if not project.is_active:
        return NextResult(None, reason="inactive")
    if not can_work_on(project=project, worker=worker):
        return NextResult(None, reason="not_member")
    for attempt in range(2):
        try:
            with transaction.atomic():
                result = _assignment_next_locked(project=project, worker=worker, now=now)
        except IntegrityError:
            # A concurrent request of the same worker opened an assignment first: resume that one.
            open_one = (Assignment.objects.select_related("item")
                        .filter(project=project, worker=worker, status=Status.ASSIGNED).first())
            if open_one is None:
                raise
            return NextResult(open_one, resumed=True)
        # Outside the worker's transaction, so that the sweep takes its locks in its own order.
        if result.reason != "done" or attempt or not leases_expire(project=project, now=now):
            return result
    return result


def _assignment_next_locked(*, project: Project, worker: User, now: datetime) -> NextResult:
    blocked, open_one = _profile_and_open(project=project, worker=worker)
    if blocked:
        return NextResult(None, reason="blocked")
    provider = provider_of(project)
    if provider is not None and not provider.may_take_items(project=project, worker=worker):
        # The participant returned the study on its marketplace, timed out or was rejected there.
        return NextResult(None, reason="left_study")
    # The standing and the policy in one read: a stopped worker gets nothing, a worker in a
    # training round only its items, everyone else real items and gold questions at the rate.
    quality = worker_quality(project=project, worker=worker, now=now)
    if quality.standing.state in STOPPED:
        return NextResult(None, reason=str(quality.standing.state))
    if open_one is not None:
        if open_one.expires_at > now:
            return NextResult(open_one, resumed=True, round=_round_of(open_one, quality))
        # The worker's own lease ran out: the item goes back to the pool and the worker moves on.
        set_status(assignments=[open_one], new=Status.EXPIRED, now=now)
        if quality_port.round_count_unanswered(assignment_ids=[open_one.pk], how="expired", now=now):
            # It counted as a wrong answer in the worker's round, which may have closed with it.
            quality = worker_quality(project=project, worker=worker, now=now)
            if quality.standing.state in STOPPED:
                return NextResult(None, reason=str(quality.standing.state))
    if quality.standing.state == Standing.REVIEW and quality.policy.review_pauses_work and quality.open_round is None:
        # Sent to review: the item on the worker's screen may be finished, no new one until staff
        # decide (a training round staff sent them to is such a decision: its items still come).
        return NextResult(None, reason="review")
    if project.max_items_per_worker is not None:
        done = (Assignment.objects.filter(project=project, worker=worker, status__in=Assignment.COUNTED_STATUSES)
                .exclude(purpose=Purpose.TRAINING).count())
        if done >= project.max_items_per_worker:
            return NextResult(None, reason="quota")
    for _ in range(2):
        training_round, stop = _training_state(project=project, worker=worker, quality=quality, now=now)
        if stop is not None:
            return stop
        if training_round is None:
            break
        assignment = _claim(project=project, worker=worker, now=now, kind=ItemKind.TRAINING)
        if assignment is not None:
            return NextResult(assignment, round=training_round)
        # No training item is left for the round: it ends with what was answered, and the
        # worker goes on as its result says.
        round_finish(training_round=training_round, now=now)
        quality = worker_quality(project=project, worker=worker, now=now)
        if quality.standing.state in STOPPED:
            return NextResult(None, reason=str(quality.standing.state))
    if quality.policy.gold_rate > 0:
        assignment = _claim_real_or_gold(project=project, worker=worker, now=now, gold_rate=quality.policy.gold_rate)
    else:
        assignment = _claim(project=project, worker=worker, now=now, kind=ItemKind.REAL)
    return NextResult(assignment) if assignment is not None else NextResult(None, reason="done")


def _round_of(assignment: Assignment, quality: WorkerQuality) -> RoundRecord | None:
    return quality.open_round if assignment.purpose == Purpose.TRAINING else None


def _training_state(*, project: Project, worker: User, quality: WorkerQuality,
                    now: datetime) -> tuple[RoundRecord | None, NextResult | None]:
    """The training round whose items the worker gets now (opening their qualification on their
    first request), or the answer that stops them; (None, None) when they get real items."""
    if quality.open_round is not None:
        return quality.open_round, None
    if quality.standing.state != Standing.QUALIFYING:
        return None, None
    policy = quality.policy
    if policy.qualification_items == 0:  # the project dropped its qualification meanwhile
        standing_activate(standing_id=quality.standing.pk, now=now)
        return None, None
    taken = qualification_taken(project=project, worker=worker)
    if taken:
        left = max(policy.qualification_attempts - len(taken), 0)
        return None, NextResult(None, reason="qualification_failed", round=taken[-1], attempts_left=left)
    opened = round_open(project=project, worker=worker, kind=QUALIFICATION, policy=policy, now=now)
    if opened is None:
        return None, NextResult(None, reason="no_training")
    return opened, None


def _profile_and_open(*, project: Project, worker: User) -> tuple[bool, Assignment | None]:
    """Lock the worker's profile (one request per worker at a time) and read whether they are
    blocked, then their open assignment in the project, with its item."""
    mine = Assignment.objects.filter(project=project, worker=worker, status=Status.ASSIGNED)
    # Whether they have an open assignment is asked in the same statement: in the loop of
    # answering they have none (their last one was just submitted), and it is read only when
    # there is one.
    locked = (WorkerProfile.objects.select_for_update().filter(user_id=worker.pk)
              .annotate(open_id=Subquery(mine.values("pk")[:1])).values_list("blocked", "open_id"))
    found = list(locked)
    if not found:  # no profile yet: made on first use, then read (and locked) as usual
        worker_profile(worker=worker)
        found = list(locked.all())
    blocked, open_id = found[0]
    open_one = None
    if open_id is not None:
        # Under the profile's lock none of this worker's requests changes it meanwhile; the
        # lease sweep may have ended it, and then it is not open any more.
        open_one = mine.select_related("item").filter(pk=open_id).first()
        if open_one is not None:
            open_one.project = project
    return bool(blocked), open_one


_ORDER: dict[str, tuple[str, ...]] = {
    Project.Order.SEQUENTIAL: ("position", "id"),
    Project.Order.SPREAD: ("n_active", "position", "id"),
    Project.Order.RANDOM: ("?",),
}
# Gold questions stand in for a real item (``_gold_for``); training items are drawn per worker
# (``check_serving.training_pick``).
_PURPOSE: dict[str, str] = {ItemKind.REAL: Purpose.TASK, ItemKind.GOLD: Purpose.GOLD, ItemKind.TRAINING: Purpose.TRAINING}


def _claimable(*, project: Project, worker: User, kind: str = ItemKind.REAL, lock: bool = True):
    """The project's items of ``kind`` with a free slot that this worker never had; with
    ``lock``, locked as they are read (``SKIP LOCKED`` on PostgreSQL)."""
    never_had = ~Exists(Assignment.objects.filter(item_id=OuterRef("pk"), worker=worker))
    found = Item.objects.filter(never_had, project=project, kind=kind, n_active__lt=F("redundancy"))
    return found.select_for_update(skip_locked=True, of=("self",)) if lock else found


def _claim_real_or_gold(*, project: Project, worker: User, now: datetime, gold_rate: float) -> Assignment | None:
    """The real item the worker is due in the project's order or, at the project's rate, a gold
    question in its place (``_gold_for``). A gold question only stands in for a real item the
    worker could have had: once the real items are done, so is the worker (otherwise any item
    handed out after "done" would be gold). Both are looked up on every claim, whatever the
    draw, so that a gold question takes as long to hand out as a real item.

    The draw alone decides, so gold questions come at the rate under every order (a binomial
    share of the claims) for as long as the worker has a gold question left; one whose gold
    questions are all answered gets the real item."""
    wants_gold = quality_port.draw() < gold_rate
    # Locked as any real claim: on PostgreSQL the row stays locked until this request commits
    # even when a gold question goes out instead, and a concurrent request skips to the next.
    due = gold_place.real_due(items=_claimable(project=project, worker=worker), project=project, worker=worker,
                              unlocked=lambda: _claimable(project=project, worker=worker, lock=False))
    real = due.order_by(*_ORDER[project.assignment_order]).first()
    if real is None:
        return None
    if gold_rate <= 0:
        # No gold question is ever served: there is nothing to tell apart and nothing to look up.
        return _open(project=project, worker=worker, now=now, item=real, kind=ItemKind.REAL)
    gold, off_group = _gold_for(project=project, worker=worker, stand_in=real)
    if wants_gold and gold is not None:
        opened = _open(project=project, worker=worker, now=now, item=gold, kind=ItemKind.GOLD, off_group=off_group)
        if opened is not None:
            return opened
    return _open(project=project, worker=worker, now=now, item=real, kind=ItemKind.REAL)


def _gold_for(*, project: Project, worker: User, stand_in: Item) -> tuple[Item | None, bool]:
    """A gold question the worker never had to stand in for the real item ``stand_in``: from its
    group, at the place ``gold_place.gold_order`` says, so that neither a change of topic nor a
    step through the corpus sets it apart from the items around it. When the group has no gold
    question left for the worker, the nearest one by position in any group, and the second value
    says so (the serve is counted on the gold question, ``Item.off_group_serves``). (None, False)
    when the worker has no gold question left.

    Read without locks: a gold question has no slot to run out of (any number of workers answer
    it), so concurrent workers may share one; the real item stays in the pool for the next claim."""
    gold = _claimable(project=project, worker=worker, kind=ItemKind.GOLD, lock=False)
    group = stand_in.group
    if group is not None:
        # One read: a group holds few gold questions, so sorting them by distance costs less
        # than a second query would.
        found = gold.filter(group=group).order_by(*gold_place.gold_order(project=project, stand_in=stand_in)).first()
        if found is not None:
            return found, False
    found = _nearest(gold, stand_in.position)
    return found, found is not None and group is not None


def _nearest(items, position: int) -> Item | None:
    """The item nearest ``position`` (the later one on a tie), each side read in index order
    (no sort of every gold question of the project)."""
    after = items.filter(position__gte=position).order_by("position", "id").first()
    before = items.filter(position__lt=position).order_by("-position", "-id").first()
    if after is None or (before is not None and position - before.position < after.position - position):
        return before
    return after


def _claim(*, project: Project, worker: User, now: datetime, kind: str = ItemKind.REAL) -> Assignment | None:
    """Pick an item of ``kind`` with a free slot that this worker never had (a real item in the
    project's order, a training item drawn per worker by ``check_serving.training_pick``) and
    open its assignment (``_open``). On PostgreSQL the pick locks its row with ``SKIP LOCKED``,
    so that concurrent requests pick different items; SQLite serialises writers."""
    if kind == ItemKind.TRAINING:
        item = quality_port.training_pick(project=project, worker=worker)
    else:
        item = _claimable(project=project, worker=worker, kind=kind).order_by(*_ORDER[project.assignment_order]).first()
    if item is None:
        return None
    return _open(project=project, worker=worker, now=now, item=item, kind=kind)


def _open(*, project: Project, worker: User, now: datetime, item: Item, kind: str,
          off_group: bool = False) -> Assignment | None:
    """Take a slot of ``item`` and open the worker's assignment on it. The slot is taken only
    while one is free (a conditional update), so no item is ever over-filled."""
    counted = {"off_group_serves": F("off_group_serves") + 1} if off_group else {}
    if not Item.objects.filter(pk=item.pk, n_active__lt=F("redundancy")).update(n_active=F("n_active") + 1,
                                                                                **counted):
        return None
    item.n_active += 1
    # The order the worker sees the item's options in, drawn from the assignment's item and
    # worker (its natural key), is stored with the row.
    parts = project_task_type(project).order_parts(item.payload)
    shown = order_for(parts=parts, seed=assignment_seed(item_id=item.pk, worker_id=worker.pk),
                      keep_import_order=project.keep_import_order)
    return Assignment.objects.create(
        item=item, project=project, worker=worker, status=Status.ASSIGNED,
        assigned_at=now, expires_at=now + timedelta(minutes=project.lease_minutes), shown_order=shown,
        purpose=_PURPOSE[kind],
    )


def assignment_return(*, assignment: Assignment, worker: User) -> Assignment:
    """The worker gives the item back unanswered; it goes to someone else."""
    with transaction.atomic():
        a = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if a.worker_id != worker.pk:
            raise WorkflowError("This assignment belongs to someone else.")
        if a.status == Status.ASSIGNED:
            now = timezone.now()
            set_status(assignments=[a], new=Status.RETURNED, now=now)
            # A skipped training item counts as a wrong answer in its round.
            quality_port.round_count_unanswered(assignment_ids=[a.pk], how="skipped", now=now)
        elif a.status not in (Status.RETURNED, Status.EXPIRED):
            raise WorkflowError("This item was already submitted.")
    return a
