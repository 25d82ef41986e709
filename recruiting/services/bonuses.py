"""Writes of the bonus ledger: granting a bonus for an answer (asking its task type) or by
hand, removing an unpaid one when its answer stops counting, and marking bonuses paid.

A bonus per annotation at most is a database constraint; granting is idempotent on top of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from annotation.models import Annotation, Assignment, Project, Purpose
from annotation.services.audit import audit_record
from annotation.task_types import get_task_type
from annotation.task_types.base import TaskType
from recruiting.models import Bonus, PaymentState

REASON_LENGTH = Bonus._meta.get_field("reason").max_length
# Rows no payment is under way for: they may be removed, or marked paid by hand. A row that is
# batched or paying waits for its bulk payment; an unconfirmed one may be marked paid by hand
# once the marketplace's own records show it was (recruiting.services.bonus_payments.payments).
SETTLED_BY_HAND = (PaymentState.OWED, PaymentState.FAILED, PaymentState.UNCONFIRMED)
REMOVABLE = (PaymentState.OWED, PaymentState.FAILED)
# An owed row already taken into a payment that is being set up is no longer removable.
REMOVABLE_ROWS = Q(payment_state=PaymentState.FAILED) | Q(payment_state=PaymentState.OWED, payment__isnull=True)
CENT = Decimal("0.01")


def _amount(value: Decimal | int | str) -> Decimal:
    """The amount in cents; refuses what is not a positive amount with a message for the admin."""
    try:
        amount = Decimal(str(value)).quantize(CENT)
    except (InvalidOperation, ValueError):
        raise ValueError(f"a bonus amount must be a number, got {value!r}") from None
    if amount <= 0:
        raise ValueError(f"a bonus amount must be positive, got {amount}")
    return amount


def bonus_grant(
    *,
    project: Project,
    worker: User,
    amount: Decimal | int | str,
    reason: str,
    annotation: Annotation | None = None,
    currency: str = "USD",
    actor: User | None = None,
) -> Bonus:
    """Record a bonus by hand (an admin rewarding good work). With ``annotation``, the one bonus
    that annotation may have: a second grant for it raises IntegrityError. A grant by a staff
    member (``actor``) goes to the audit log; the task type's own grants do not."""
    if annotation is not None and (annotation.assignment.project_id != project.pk
                                   or annotation.assignment.worker_id != worker.pk):
        raise ValueError("a bonus for an annotation goes to its worker in its project")
    reason = " ".join(str(reason).split())
    if not reason:
        raise ValueError("a bonus needs a reason")
    currency = str(currency).strip().upper()
    if not (currency.isascii() and currency.isalpha() and len(currency) == 3):
        raise ValueError(f"a currency is a three-letter code such as USD or GBP, got {currency!r}")
    with transaction.atomic():
        bonus = Bonus.objects.create(
            project=project, worker=worker, annotation=annotation, amount=_amount(amount),
            currency=currency, reason=reason[:REASON_LENGTH],
        )
        if actor is not None:
            audit_record(actor=actor, action="bonus", project=project, target=f"worker {worker.get_username()}",
                         details={"bonus": bonus.pk, "amount": str(bonus.amount), "currency": bonus.currency,
                                  "reason": bonus.reason, "annotation": annotation.pk if annotation else None})
    return bonus


def bonus_remove(*, bonus: Bonus, actor: User | None) -> None:
    """Remove a bonus from the ledger by hand (granted in error); a paid one cannot be removed,
    since the money is gone. Audited."""
    with transaction.atomic():
        locked = Bonus.objects.select_for_update().select_related("worker").get(pk=bonus.pk)
        if locked.paid_at is not None:
            raise ValueError(f"bonus {locked.pk} was paid on {locked.paid_at:%Y-%m-%d} and stays in the ledger")
        if not Bonus.objects.filter(REMOVABLE_ROWS, pk=locked.pk).exists():
            raise ValueError(f"bonus {locked.pk} is {locked.get_payment_state_display().lower()} through the "
                             "marketplace and stays in the ledger until that payment is settled")
        audit_record(actor=actor, action="bonus:remove", project=Project(pk=locked.project_id),
                     target=f"worker {locked.worker.get_username()}",
                     details={"bonus": locked.pk, "amount": str(locked.amount), "currency": locked.currency,
                              "reason": locked.reason})
        locked.delete()


def bonus_grant_for(*, annotation: Annotation) -> Bonus | None:
    """The bonus the project's task type grants for a counted answer, recorded once: a second call
    returns the bonus recorded first (even when the type would now decide otherwise)."""
    existing = Bonus.objects.filter(annotation=annotation).first()
    if existing is not None:
        return existing
    a = Assignment.objects.select_related("item", "project", "worker").get(pk=annotation.assignment_id)
    return bonus_grant_new(annotation=annotation, assignment=a, task=get_task_type(a.project.task_type))


def bonus_grant_new(*, annotation: Annotation, assignment: Assignment, task: TaskType) -> Bonus | None:
    """The bonus for an answer just stored (so none is recorded yet), with its assignment, item
    and project already read: no query unless the task type grants one."""
    a = assignment
    # Rejected work and late answers that did not count earn nothing; nor does a training answer
    # (the worker knows it is training). A gold question earns what a real item would: a worker
    # promised a bonus per right answer must not find the gold questions in their ledger.
    if a.status not in Assignment.COUNTED_STATUSES or a.purpose == Purpose.TRAINING:
        return None
    earned = task.bonus_for(answer=annotation.answer, gold=a.item.gold, options=task.clean_options(a.project.options))
    if earned is None:
        return None
    amount, reason, *currency = earned
    try:
        # A savepoint, so that losing a race to a concurrent grant leaves the caller's transaction usable.
        with transaction.atomic():
            return bonus_grant(project=a.project, worker=a.worker, amount=amount, reason=reason, annotation=annotation,
                               currency=currency[0] if currency else "USD")
    except IntegrityError:
        existing = Bonus.objects.filter(annotation=annotation).first()
        if existing is None:
            raise
        return existing


def bonus_revoke_for(*, assignment: Assignment) -> int:
    """Remove the unpaid bonus of an assignment's answer (rejected, or changed by the worker);
    a paid bonus stays in the ledger, since the money is gone. Returns how many were removed."""
    removed, _ = Bonus.objects.filter(REMOVABLE_ROWS, annotation__assignment=assignment).delete()
    return removed


def bonuses_mark_paid(*, bonuses: Iterable[Bonus], note: str = "", now: datetime | None = None,
                      actor: User | None = None) -> int:
    """Mark unpaid bonuses paid (a queryset or a list); bonuses paid before keep their date and
    note, and bonuses batched or paying through a marketplace's API are left to that payment.
    Returns how many were marked. With ``actor``, one audit entry per project."""
    now = now or timezone.now()
    ids = [b.pk for b in bonuses]
    with transaction.atomic():
        unpaid = Bonus.objects.select_for_update().filter(pk__in=ids, payment_state__in=SETTLED_BY_HAND)
        marked = list(unpaid.values_list("pk", "project_id"))
        n = Bonus.objects.filter(pk__in=[pk for pk, _ in marked]).update(
            paid_at=now, paid_note=note[:300], payment_state=PaymentState.PAID)
        if actor is not None:
            per_project: dict[int, list[int]] = {}
            for pk, project_id in marked:
                per_project.setdefault(project_id, []).append(pk)
            for project_id, pks in per_project.items():
                audit_record(actor=actor, action="bonus:paid", project=Project(pk=project_id),
                             target=f"{len(pks)} bonus{'es' if len(pks) != 1 else ''}",
                             details={"bonuses": pks[:1000], "note": note[:300]})
    return n


class BonusLedger:
    """The bonus ledger as the engine's ledger (``annotation.ledger_port``): the bonus the
    project's task type grants follows each answer as it is stored, rejected, approved or changed."""

    def answer_stored(self, *, annotation: Annotation, assignment: Assignment, task: TaskType, counted: bool) -> None:
        if counted:
            bonus_grant_new(annotation=annotation, assignment=assignment, task=task)

    def answer_counts_again(self, *, annotation: Annotation) -> None:
        bonus_grant_for(annotation=annotation)

    def answer_uncounted(self, *, assignment: Assignment) -> None:
        bonus_revoke_for(assignment=assignment)
