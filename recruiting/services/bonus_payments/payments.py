"""Paying the bonus ledger through Prolific's API, as staff ask for it: queue a payment of owed
bonuses (all, or those selected), reconcile what a crash left unfinished, and settle by hand
what could not be confirmed. Nothing is paid inside a web request: a job does it
(``bonus_pay_job_execute``), step by step (``recruiting.services.bonus_payments.steps``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotation.models import Project
from annotation.services.audit import audit_record
from jobs.live import Attempt
from jobs.selectors import is_dead
from jobs.services import JobOutcome, job_enqueue, job_execute
from recruiting.models import (
    Bonus,
    BonusPayJob,
    BonusPayment,
    PaymentState,
    ProjectPay,
    ProlificStudy,
)
from recruiting.services.bonus_payments.steps import payment_advance

State = PaymentState
BONUS_PAY_TASK = BonusPayJob.task_name
# Rows a new payment may take: owed and in no payment, or refused before (nothing was paid).
PAYABLE = (Q(payment_state=State.OWED) & Q(payment__isnull=True)) | Q(payment_state=State.FAILED)
UNFINISHED = (State.OWED, State.BATCHED, State.PAYING, State.UNCONFIRMED)


class PaymentRefused(ValueError):
    """A payment that cannot be queued, with the field at fault."""

    def __init__(self, message: str, *, field: str = "bonuses") -> None:
        super().__init__(message)
        self.field = field


def _study(project: Project) -> ProlificStudy:
    study = ProlificStudy.objects.filter(project=project).first()
    if study is None:
        raise PaymentRefused("The project is not linked to a Prolific study: link one before paying through Prolific.",
                             field="project")
    return study


def bonuses_pay(*, project: Project, bonuses: Iterable[Bonus] | None, actor: User | None,
                send: Callable[[int], Any] | None = None) -> BonusPayJob:
    """Queue a payment through Prolific of the project's owed bonuses (``bonuses`` None: all of
    them), as one bulk payment. Refused, with nothing written, when the project has no study or
    no pay currency, a selected bonus is not owed, a worker has no Prolific id, or the currencies
    differ from each other or from the project's pay currency (the study's)."""
    study = _study(project)
    with transaction.atomic():
        rows = Bonus.objects.select_for_update(of=("self",)).filter(project=project)
        if bonuses is not None:
            ids = sorted({b.pk for b in bonuses})
            rows = rows.filter(pk__in=ids)
            found = list(rows.select_related("worker__profile"))
            not_owed = [b.pk for b in found if not (b.payment_state == State.FAILED or
                                                    (b.payment_state == State.OWED and b.payment_id is None))]
            if not_owed:
                raise PaymentRefused(f"Only owed bonuses can be paid; these are not: {', '.join(map(str, not_owed))}.")
        else:
            found = list(rows.filter(PAYABLE).select_related("worker__profile"))
        if not found:
            raise PaymentRefused("No owed bonus to pay.")
        no_pid = sorted({b.worker.get_username() for b in found
                         if getattr(b.worker, "profile", None) is None or b.worker.profile.source != "prolific"
                         or not b.worker.profile.external_id})
        if no_pid:
            raise PaymentRefused("These workers did not come from Prolific and cannot be paid through it: "
                                 f"{', '.join(no_pid[:20])}.")
        currencies = sorted({b.currency for b in found})
        pay = ProjectPay.objects.filter(project=project).first()
        if pay is None:
            # Prolific pays the amounts in the study's currency, whatever the ledger says.
            raise PaymentRefused("Set the project's reward per item and its currency (the study's currency) "
                                 "before paying through Prolific.", field="project")
        if len(currencies) > 1:
            raise PaymentRefused(f"A bulk payment is in one currency; these bonuses are in {', '.join(currencies)}.")
        if currencies[0] != pay.currency:
            raise PaymentRefused(f"The bonuses are in {currencies[0]} but the study pays in {pay.currency} "
                                 "(the project's pay currency): Prolific would pay the amounts in its own currency.")
        payment = BonusPayment.objects.create(project=project, study_id=study.study_id, currency=currencies[0],
                                              created_by=actor if actor is not None and actor.is_authenticated else None)
        Bonus.objects.filter(pk__in=[b.pk for b in found]).update(payment=payment, payment_state=State.OWED)
        job = BonusPayJob.objects.create(project=project, kind=BonusPayJob.Kind.PAY, payment=payment,
                                         created_by=payment.created_by)
        total = sum(b.amount for b in found)
        audit_record(actor=actor, action="bonus:pay", project=project, target=f"{len(found)} bonuses",
                     details={"payment": payment.pk, "job": job.pk, "bonuses": [b.pk for b in found][:1000],
                              "amount": str(total), "currency": currencies[0], "study": study.study_id})
        job_enqueue(job=job, send=send)
    return job


def bonuses_reconcile(*, project: Project, actor: User | None, send: Callable[[int], Any] | None = None) -> BonusPayJob:
    """Queue a job that settles the project's unfinished bulk payments (see payments_reconcile)."""
    with transaction.atomic():
        job = BonusPayJob.objects.create(project=project, kind=BonusPayJob.Kind.RECONCILE,
                                         created_by=actor if actor is not None and actor.is_authenticated else None)
        audit_record(actor=actor, action="bonus:reconcile", project=project, target="bonus payments",
                     details={"job": job.pk})
        job_enqueue(job=job, send=send)
    return job


def payments_reconcile(*, project: Project) -> dict[str, int]:
    """Settle every unfinished bulk payment of the project without paying twice: set up those
    whose job stopped before Prolific gave an id, pay those batched (the pay call was never
    sent), read back those paying or unconfirmed. Returns how many ended in each state."""
    ended: dict[str, int] = {}
    for payment in BonusPayment.objects.filter(project=project, state__in=UNFINISHED).order_by("pk"):
        if _in_hand(payment):
            ended["in hand"] = ended.get("in hand", 0) + 1
            continue
        state = payment_advance(payment=payment)
        ended[state] = ended.get(state, 0) + 1
    return ended


def _in_hand(payment: BonusPayment) -> bool:
    """True when the payment's own job is queued, or running on a live worker: it goes on by
    itself, and reading back in the middle of its pay call would only say unconfirmed."""
    for job in BonusPayJob.objects.filter(payment=payment, kind=BonusPayJob.Kind.PAY, status__in=BonusPayJob.ACTIVE):
        if job.status == BonusPayJob.Status.QUEUED or not is_dead(job=job):
            return True
    return False


def _resolve(*, payment: BonusPayment, actor: User | None, note: str, allowed: tuple[str, ...], action: str) -> None:
    note = " ".join(str(note or "").split())
    if not note:
        raise PaymentRefused("Say what the marketplace's own records show (a note is required).", field="note")
    if payment.state not in allowed:
        raise PaymentRefused(f"This payment is {payment.get_state_display().lower()}; only "
                             f"{' or '.join(allowed)} payments can be settled this way.", field="payment")
    audit_record(actor=actor, action=action, project=payment.project,
                 target=f"bulk bonus payment {payment.bulk_id or payment.pk}",
                 details={"payment": payment.pk, "bulk_id": payment.bulk_id, "note": note[:500],
                          "evidence": payment.evidence})


def bonus_payment_confirm(*, payment: BonusPayment, actor: User | None, note: str) -> int:
    """A person checked on Prolific that an unconfirmed bulk payment was paid: its rows are paid."""
    with transaction.atomic():
        payment = BonusPayment.objects.select_for_update().get(pk=payment.pk)
        _resolve(payment=payment, actor=actor, note=note, allowed=(State.UNCONFIRMED,), action="bonus:confirm")
        now = timezone.now()
        BonusPayment.objects.filter(pk=payment.pk).update(state=State.PAID, settled_at=now)
        return Bonus.objects.filter(payment=payment).exclude(payment_state=State.PAID).update(
            payment_state=State.PAID, paid_at=now, paid_note=f"confirmed by hand: {' '.join(note.split())}"[:300])


def bonus_payment_release(*, payment: BonusPayment, actor: User | None, note: str) -> int:
    """A person checked on Prolific that an unconfirmed (or refused) bulk payment paid nothing:
    its rows are owed again, to be paid in a new bulk payment. Returns how many rows."""
    with transaction.atomic():
        payment = BonusPayment.objects.select_for_update().get(pk=payment.pk)
        _resolve(payment=payment, actor=actor, note=note, allowed=(State.UNCONFIRMED, State.FAILED),
                 action="bonus:release")
        BonusPayment.objects.filter(pk=payment.pk).update(state=State.FAILED, settled_at=timezone.now())
        return Bonus.objects.filter(payment=payment).exclude(payment_state=State.PAID).update(
            payment_state=State.OWED, payment=None)


def bonus_pay_job_execute(*, job_id: int) -> BonusPayJob | None:
    """Run a queued pay or reconcile job (safe to run again: every step reads where it was left)."""
    return job_execute(model=BonusPayJob, pk=job_id, work=_work, failure="The payment job stopped: ")


def _work(job: BonusPayJob, attempt: Attempt) -> JobOutcome:
    attempt.progress(0.1, "paying through Prolific" if job.kind == BonusPayJob.Kind.PAY else "reconciling")
    if job.kind == BonusPayJob.Kind.PAY and job.payment is not None:
        result: dict[str, Any] = {"payment": job.payment.pk, "state": payment_advance(payment=job.payment)}
    else:
        result = {"states": payments_reconcile(project=job.project)}
    return JobOutcome(fields={"result": result})
