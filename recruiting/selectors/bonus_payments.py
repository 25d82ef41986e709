"""Reads of paying bonuses through a marketplace: each ledger row with its payment state, the
project's bulk payments with what they showed when read back, and its recent pay jobs."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from annotation.models import Project
from recruiting.models import Bonus, BonusPayJob, BonusPayment, PaymentState

State = PaymentState


def bonus_payment_rows(*, project: Project, state: str = "") -> QuerySet[Bonus]:
    rows = (Bonus.objects.filter(project=project).select_related("worker__profile", "payment")
            .order_by("created_at", "pk"))
    return rows.filter(payment_state=state) if state in State.values else rows


def bonus_payments_of(*, project: Project) -> QuerySet[BonusPayment]:
    return BonusPayment.objects.filter(project=project).order_by("-created_at", "-pk")


def bonus_pay_jobs_of(*, project: Project, limit: int = 10) -> list[BonusPayJob]:
    return list(BonusPayJob.objects.filter(project=project).order_by("-created_at", "-pk")[:limit])


def bonus_row_data(*, bonus: Bonus) -> dict[str, Any]:
    profile = getattr(bonus.worker, "profile", None)
    return {"id": bonus.pk, "worker": bonus.worker.get_username(),
            "worker_source": profile.source if profile else "",
            "worker_external_id": (profile.external_id or "") if profile else "",
            "amount": str(bonus.amount), "currency": bonus.currency, "reason": bonus.reason,
            "state": bonus.payment_state, "payment": bonus.payment_id,
            "bulk_id": bonus.payment.bulk_id if bonus.payment else "",
            "paid_at": bonus.paid_at.isoformat() if bonus.paid_at else None, "paid_note": bonus.paid_note}


def payment_data(*, payment: BonusPayment) -> dict[str, Any]:
    return {"id": payment.pk, "marketplace": payment.marketplace, "study_id": payment.study_id,
            "bulk_id": payment.bulk_id, "state": payment.state, "currency": payment.currency,
            "bonuses": payment.bonuses.count(), "error": payment.error, "evidence": payment.evidence,
            "created_at": payment.created_at.isoformat(),
            "pay_sent_at": payment.pay_sent_at.isoformat() if payment.pay_sent_at else None,
            "settled_at": payment.settled_at.isoformat() if payment.settled_at else None}


def job_data(*, job: BonusPayJob) -> dict[str, Any]:
    return {"id": job.pk, "kind": job.kind, "status": job.status, "payment": job.payment_id, "error": job.error,
            "result": job.result, "created_at": job.created_at.isoformat()}
