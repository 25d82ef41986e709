"""The steps of paying a bulk bonus payment through Prolific, each committed before the next
call goes out, so that a crash anywhere leaves a state that says what is safe to do next:

- owed: nothing was sent, or only a set-up (which pays nothing): set it up (again).
- batched: the bulk payment's id is committed and the pay call was never sent: send it.
- paying: committed just before the pay call, so it may have gone through: it is NEVER sent
  again; what was paid is read back from the submissions' ``bonus_payments``, and a payment
  that cannot be confirmed there becomes unconfirmed, for a person to decide with the evidence.

Only the step that moves a bulk payment from batched to paying (one guarded UPDATE) may send the
pay call, so two workers, or a job and a reconciliation, cannot both send it. Every step writes
an audit entry (actor: the platform).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.services.audit import audit_record
from recruiting.models import Bonus, BonusPayment, PaymentState
from recruiting.providers.prolific.bonuses import (
    bulk_bonus_pay,
    bulk_bonus_setup,
    csv_bonuses,
    study_submissions,
    submission_bonus_payments,
)
from recruiting.providers.prolific.http import MarketplaceError

State = PaymentState


def marketplace_message(*, exc: MarketplaceError) -> str:
    """What the marketplace said, for a person: its status and the detail it gave."""
    detail = exc.detail
    if isinstance(detail, dict):
        inner = detail.get("error", detail)
        detail = inner.get("detail", inner) if isinstance(inner, dict) else inner
    text = str(exc) if detail in (None, "", {}) else f"{exc}: {detail}"
    return text[:2000]


def payment_lines(*, payment: BonusPayment) -> dict[str, Decimal]:
    """Participant id → the amount this bulk payment pays them (their rows added up)."""
    lines: dict[str, Decimal] = defaultdict(Decimal)
    for pid, amount in payment.bonuses.values_list("worker__profile__external_id", "amount"):
        lines[str(pid)] += amount
    return dict(sorted(lines.items()))


def _audit(payment: BonusPayment, action: str, **details: Any) -> None:
    audit_record(actor=None, action=action, project=payment.project,
                 target=f"bulk bonus payment {payment.bulk_id or payment.pk}",
                 details={"payment": payment.pk, "bulk_id": payment.bulk_id, **details})


def _move(payment: BonusPayment, *, frm: tuple[str, ...], to: str, rows_to: str | None = None,
          **fields: Any) -> bool:
    """Move the bulk payment (guarded by its current state) and its rows; False when another
    step moved it first. Call inside a transaction."""
    moved = BonusPayment.objects.filter(pk=payment.pk, state__in=frm).update(state=to, **fields)
    if moved:
        rows: dict[str, Any] = {"payment_state": rows_to or to}
        if (rows_to or to) == State.PAID:
            rows.update(paid_at=timezone.now(), paid_note=f"Prolific bulk bonus payment {payment.bulk_id}"[:300])
        Bonus.objects.filter(payment=payment).exclude(payment_state=State.PAID).update(**rows)
    return bool(moved)


def payment_set_up(*, payment: BonusPayment) -> None:
    """Ask Prolific for a bulk payment of the rows (which pays nothing) and commit its id."""
    lines = payment_lines(payment=payment)
    if not lines:
        with transaction.atomic():
            _move(payment, frm=(State.OWED,), to=State.FAILED, error="No bonus was left to pay in this payment.")
        return
    csv = csv_bonuses(lines.items())
    try:
        bulk = bulk_bonus_setup(study_id=payment.study_id, csv=csv)
    except MarketplaceError as exc:
        message = marketplace_message(exc=exc)
        with transaction.atomic():
            if _move(payment, frm=(State.OWED,), to=State.FAILED, error=message, settled_at=timezone.now()):
                _audit(payment, "bonus:pay-failed", step="set up", error=message, paid=False)
        return
    with transaction.atomic():
        # Guarded: when two attempts both set one up, one id is kept and the other never paid.
        if BonusPayment.objects.filter(pk=payment.pk, state=State.OWED, bulk_id="").update(
                bulk_id=bulk.id, state=State.BATCHED, csv_bonuses=csv, error=""):
            payment.bulk_id = bulk.id
            Bonus.objects.filter(payment=payment, payment_state=State.OWED).update(payment_state=State.BATCHED)
            _audit(payment, "bonus:batched", participants=len(lines), amount_cents=bulk.amount_cents,
                   total_cents=bulk.total_cents, currency=payment.currency)


def payment_send(*, payment: BonusPayment) -> None:
    """Commit paying, then send the pay call once; record what came back."""
    with transaction.atomic():
        if not _move(payment, frm=(State.BATCHED,), to=State.PAYING, pay_sent_at=timezone.now()):
            return
        _audit(payment, "bonus:paying")
    try:
        bulk_bonus_pay(bulk_id=payment.bulk_id)
    except MarketplaceError as exc:
        message = marketplace_message(exc=exc)
        if exc.status is not None and 400 <= exc.status < 500:
            # Refused: nothing was paid, and the rows may be paid again in a new bulk payment.
            with transaction.atomic():
                if _move(payment, frm=(State.PAYING, State.UNCONFIRMED), to=State.FAILED, error=message,
                         settled_at=timezone.now()):
                    _audit(payment, "bonus:pay-failed", step="pay", error=message, paid=False)
            return
        # A server error or no answer: the payment may have been made. Never sent again; read back.
        BonusPayment.objects.filter(pk=payment.pk).update(error=message)
        payment_read_back(payment=payment, cause=message)
        return
    with transaction.atomic():
        # Unconfirmed too: a reconciliation may have read back while the call was on its way.
        if _move(payment, frm=(State.PAYING, State.UNCONFIRMED), to=State.PAID, settled_at=timezone.now()):
            _audit(payment, "bonus:paid", via="prolific", rows=list(payment.bonuses.values_list("pk", flat=True)))


def _accounted(payment: BonusPayment) -> dict[str, Counter[int]]:
    """Per participant, the amounts (cents) other settled bulk payments of the study paid them."""
    seen: dict[str, Counter[int]] = defaultdict(Counter)
    others = BonusPayment.objects.filter(study_id=payment.study_id, state=State.PAID).exclude(pk=payment.pk)
    for other in others:
        for pid, amount in payment_lines(payment=other).items():
            seen[pid][int(amount * 100)] += 1
    return seen


def payment_read_back(*, payment: BonusPayment, cause: str = "") -> str:
    """Settle a paying (or unconfirmed) bulk payment from what Prolific shows was paid on the
    participants' submissions: paid when every participant's amount is there beyond what other
    settled payments explain, else unconfirmed with the evidence. Never pays. Returns the state."""
    lines = payment_lines(payment=payment)
    evidence: dict[str, Any] = {"read_at": timezone.now().isoformat(), "cause": cause, "participants": []}
    confirmed = True
    try:
        subs: dict[str, list[str]] = defaultdict(list)
        for s in study_submissions(study_id=payment.study_id):
            subs[str(s.get("participant_id") or s.get("participant") or "")].append(str(s.get("id")))
        accounted = _accounted(payment)
        for pid, amount in lines.items():
            cents = int(amount * 100)
            shown = [c for sid in subs.get(pid, []) for c in submission_bonus_payments(submission_id=sid)]
            extra = Counter(shown) - accounted.get(pid, Counter())
            found = extra[cents] > 0
            confirmed = confirmed and found
            evidence["participants"].append({"participant": pid, "expected_cents": cents, "shown_cents": shown,
                                             "explained_by_other_payments": sorted(accounted.get(pid, Counter()).elements()),
                                             "found": found})
    except MarketplaceError as exc:
        confirmed = False
        evidence["error"] = marketplace_message(exc=exc)
    with transaction.atomic():
        if confirmed:
            if _move(payment, frm=(State.PAYING, State.UNCONFIRMED), to=State.PAID, settled_at=timezone.now(),
                     evidence=evidence):
                _audit(payment, "bonus:reconciled", outcome="paid", evidence=evidence)
            return State.PAID
        if _move(payment, frm=(State.PAYING, State.UNCONFIRMED), to=State.UNCONFIRMED, evidence=evidence):
            _audit(payment, "bonus:reconciled", outcome="unconfirmed", evidence=evidence)
    return State.UNCONFIRMED


def payment_advance(*, payment: BonusPayment) -> str:
    """Take a bulk payment as far as it safely goes from the state it was left in; returns the
    state it ends in. Safe to run again, and beside another run, at any point."""
    payment.refresh_from_db()
    if payment.state == State.OWED:
        payment_set_up(payment=payment)
        payment.refresh_from_db()
    if payment.state == State.BATCHED:
        payment_send(payment=payment)
    elif payment.state in (State.PAYING, State.UNCONFIRMED):
        payment_read_back(payment=payment, cause="read back after the pay call was left unanswered")
    payment.refresh_from_db()
    return payment.state
