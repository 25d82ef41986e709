"""Reads of the bonus ledger: a project's bonuses, what each worker is owed, and the project's
totals. Sums are per currency, since amounts in different currencies do not add up."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Q, QuerySet, Sum

from annotation.models import Project
from recruiting.models import Bonus

CENT = Decimal("0.01")
UNPAID = Q(paid_at__isnull=True)


def _money(value: Decimal | None) -> Decimal:
    # SQLite sums decimals without their scale (1.5 for 1.50): give every sum its cents back.
    return Decimal(value or 0).quantize(CENT)


@dataclass(frozen=True)
class WorkerBonuses:
    worker_id: int
    worker: str
    worker_source: str
    worker_external_id: str
    currency: str
    count: int
    total: Decimal
    paid: Decimal
    unpaid: Decimal


@dataclass(frozen=True)
class BonusTotal:
    currency: str
    count: int
    total: Decimal
    unpaid: Decimal


def bonuses_of(*, project: Project) -> QuerySet[Bonus]:
    """The project's bonuses in the order they were granted, with what their rows show."""
    return (
        Bonus.objects.filter(project=project)
        .select_related("worker__profile", "annotation__assignment__item")
        .order_by("created_at", "pk")
    )


def bonus_ledger(*, project: Project) -> list[WorkerBonuses]:
    """Per worker (and currency): how many bonuses, their total, what was paid and what is owed;
    one aggregate query, ordered by user name."""
    rows = (
        Bonus.objects.filter(project=project)
        .values("worker_id", "worker__username", "worker__profile__source", "worker__profile__external_id", "currency")
        .annotate(count=Count("pk"), total=Sum("amount"), unpaid=Sum("amount", filter=UNPAID))
        .order_by("worker__username", "currency")
    )
    return [
        WorkerBonuses(
            worker_id=r["worker_id"], worker=r["worker__username"],
            worker_source=r["worker__profile__source"] or "",
            worker_external_id=r["worker__profile__external_id"] or "",
            currency=r["currency"], count=r["count"], total=_money(r["total"]),
            paid=_money(r["total"]) - _money(r["unpaid"]), unpaid=_money(r["unpaid"]),
        )
        for r in rows
    ]


def bonus_totals(*, project: Project) -> list[BonusTotal]:
    """The project's bonuses summed per currency; empty when it has none."""
    rows = (
        Bonus.objects.filter(project=project).values("currency")
        .annotate(count=Count("pk"), total=Sum("amount"), unpaid=Sum("amount", filter=UNPAID))
        .order_by("currency")
    )
    return [BonusTotal(r["currency"], r["count"], _money(r["total"]), _money(r["unpaid"])) for r in rows]
