"""Items flagged as broken: a worker reports a problem with an item instead of answering it,
and staff withdraw the item or dismiss the report.

Flagging gives the worker's open assignment back (its slot goes to someone else; the worker
never gets the item again) and records the flag, in one transaction; flagging the same
assignment again returns the flag already recorded. Withdrawing makes the item ``withdrawn``:
it is served to nobody, its open assignments go back to the pool, and its answers leave the
data. Both staff actions resolve every open flag of the item and go to the audit log. A
withdrawal can be undone while the item stays withdrawn (``item_withdrawal_undo``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment, Item, ItemKind
from annotation.services.audit import audit_record
from annotation.services.engine import set_status
from annotation.services.errors import NotYours, WorkflowError
from quality.models import ItemFlag
from quality.services.check_serving import round_count_unanswered
from quality.services.gold_counts import gold_counts_recount, gold_item_workers

Status = Assignment.Status
REASON_MAX = 500


class FlagInvalid(ValueError):
    """A flag refused, with a message per field (``problem``, ``reason``)."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


def clean_flag(*, problem: Any, reason: Any) -> tuple[str, str]:
    errors = {}
    if problem not in ItemFlag.Problem.values:
        errors["problem"] = f"Choose what is wrong (one of {', '.join(ItemFlag.Problem.values)})."
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        errors["reason"] = "Describe the problem (required)."
    elif len(text) > REASON_MAX:
        errors["reason"] = f"At most {REASON_MAX} characters (this has {len(text)})."
    elif "\x00" in text:
        errors["reason"] = "The text holds a NUL character."
    if errors:
        raise FlagInvalid(errors)
    return str(problem), text


def item_flag(*, assignment: Assignment, worker: User, problem: str, reason: str) -> ItemFlag:
    """Flag the item of the worker's open ``assignment`` (only its ``pk`` is read) as broken and
    give the assignment back. Raises ``Assignment.DoesNotExist`` for an unknown assignment,
    ``NotYours`` for another worker's, ``FlagInvalid`` for a bad problem or reason and
    ``WorkflowError`` when the assignment is no longer open and was not flagged."""
    now = timezone.now()
    with transaction.atomic():
        a = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if a.worker_id != worker.pk:
            raise NotYours("This assignment belongs to someone else.")
        # Checked after the owner, so that a bad report about another's assignment is answered
        # as one about a missing assignment.
        problem, reason = clean_flag(problem=problem, reason=reason)
        earlier = ItemFlag.objects.filter(assignment=a).first()
        if earlier is not None:
            return earlier
        if a.status != Status.ASSIGNED:
            raise WorkflowError("This item is no longer yours to report: it was answered, skipped or its time ran out.")
        set_status(assignments=[a], new=Status.RETURNED, now=now)
        # A flagged training item counts as a wrong answer in its round (the flag still goes
        # to staff, who may withdraw the item).
        round_count_unanswered(assignment_ids=[a.pk], how="flagged", now=now)
        return ItemFlag.objects.create(assignment=a, project_id=a.project_id, item_id=a.item_id, worker=worker,
                                       problem=problem, reason=reason, created_at=now)


def _resolve(*, item: Item, resolution: str, now) -> int:
    return ItemFlag.objects.filter(item=item, resolved_at__isnull=True).update(resolved_at=now, resolution=resolution)


def item_withdraw(*, item: Item, actor: User | None, note: str = "") -> Item:
    """Withdraw ``item`` (a real item or a gold question alike): nobody is served it again, its
    open assignments go back to the pool and its open flags are resolved as withdrawn."""
    now = timezone.now()
    with transaction.atomic():
        locked = Item.objects.select_for_update().select_related("project").get(pk=item.pk)
        before = locked.kind
        if before != ItemKind.WITHDRAWN:
            # The kind it had is kept, so that the withdrawal can be undone.
            locked.kind, locked.kind_before_withdrawal = ItemKind.WITHDRAWN, before
            locked.save(update_fields=["kind", "kind_before_withdrawal", "updated_at"])
        open_ones = list(Assignment.objects.select_for_update().filter(item=locked, status=Status.ASSIGNED).order_by("pk"))
        returned = set_status(assignments=open_ones, new=Status.RETURNED, now=now)
        resolved = _resolve(item=locked, resolution="withdrawn", now=now)
        # A withdrawn gold question's answers stop counting for or against its workers.
        recounted = gold_counts_recount(project=locked.project, worker_ids=gold_item_workers(item=locked))
        audit_record(actor=actor, action="item_withdraw", project=locked.project, target=f"item {locked.external_id}",
                     details={"item": locked.pk, "kind_before": before, "returned_assignments": returned,
                              "flags_resolved": resolved, "gold_counts_recounted": recounted,
                              "note": note[:500]})
    locked.refresh_from_db(fields=["n_active"])
    return locked


def item_withdrawal_undo(*, item: Item, actor: User | None, note: str = "") -> Item:
    """Undo a withdrawal, as long as the item is withdrawn (no time limit: until staff act): it
    is served again as what it was (real, gold question or training item), its answers count
    again, the flags its withdrawal resolved are open again, and the gold counts of its workers
    are recounted. Assignments the withdrawal gave back stay given back: their workers were told
    and their slots went to others. Raises WorkflowError for an item that is not withdrawn."""
    with transaction.atomic():
        locked = Item.objects.select_for_update().select_related("project").get(pk=item.pk)
        if locked.kind != ItemKind.WITHDRAWN:
            raise WorkflowError(f"Item {locked.external_id} is not withdrawn: there is nothing to undo.")
        restored = locked.kind_before_withdrawal or ItemKind.REAL
        locked.kind, locked.kind_before_withdrawal = restored, ""
        locked.save(update_fields=["kind", "kind_before_withdrawal", "updated_at"])
        reopened = ItemFlag.objects.filter(item=locked, resolution="withdrawn").update(resolved_at=None, resolution="")
        recounted = gold_counts_recount(project=locked.project, worker_ids=gold_item_workers(item=locked))
        audit_record(actor=actor, action="item_withdraw_undo", project=locked.project,
                     target=f"item {locked.external_id}",
                     details={"item": locked.pk, "kind_after": restored, "flags_reopened": reopened,
                              "gold_counts_recounted": recounted, "note": note[:500]})
    return locked


def item_flags_dismiss(*, item: Item, actor: User | None, note: str = "") -> int:
    """Dismiss the open flags of ``item``: it stays as it is. Returns how many were resolved."""
    now = timezone.now()
    with transaction.atomic():
        resolved = _resolve(item=item, resolution="dismissed", now=now)
        audit_record(actor=actor, action="flags_dismiss", project=item.project, target=f"item {item.external_id}",
                     details={"item": item.pk, "flags_resolved": resolved, "note": note[:500]})
    return resolved
