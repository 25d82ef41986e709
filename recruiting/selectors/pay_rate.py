"""What a project's reward per item comes to per hour, from the median time its counted answers
took (``Annotation.seconds``, the time the annotation page recorded for the item), beside the
marketplace's minimum (``recruiting.providers.minimum_pay``). The median, as Prolific uses,
so that a few very fast or very slow answers do not move it."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

from annotation.models import Annotation, Assignment, Project
from recruiting.models import ProjectPay
from recruiting.providers.minimum_pay import minimum_hourly, recommended_hourly

CENT = Decimal("0.01")


@dataclass(frozen=True)
class PayRate:
    marketplace: str
    reward_per_item: Decimal | None
    currency: str
    answers: int  # counted answers with a recorded time
    median_seconds: float | None
    hourly: Decimal | None
    minimum_hourly: Decimal | None
    recommended_hourly: Decimal | None

    @property
    def below_minimum(self) -> bool:
        return self.hourly is not None and self.minimum_hourly is not None and self.hourly < self.minimum_hourly

    @property
    def warning(self) -> str:
        if self.below_minimum:
            return (f"{self.hourly} {self.currency} per hour is below {self.marketplace.capitalize()}'s minimum of "
                    f"{self.minimum_hourly} {self.currency}: raise the reward per item to at least "
                    f"{self.reward_needed} {self.currency}.")
        return ""

    @property
    def reward_needed(self) -> Decimal | None:
        """The reward per item that pays the minimum at the median time, rounded up to the cent."""
        if self.minimum_hourly is None or self.median_seconds is None:
            return None
        needed = self.minimum_hourly * Decimal(str(self.median_seconds)) / Decimal(3600)
        return needed.quantize(CENT, rounding=ROUND_CEILING)

    def as_dict(self) -> dict:
        return {"marketplace": self.marketplace, "reward_per_item": _money(self.reward_per_item),
                "currency": self.currency, "answers": self.answers, "median_seconds": self.median_seconds,
                "hourly": _money(self.hourly), "minimum_hourly": _money(self.minimum_hourly),
                "recommended_hourly": _money(self.recommended_hourly), "below_minimum": self.below_minimum,
                "reward_needed": _money(self.reward_needed), "warning": self.warning}


def _money(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def project_median_seconds(*, project: Project) -> tuple[int, float | None]:
    """(how many counted answers recorded a time, the median of those times)."""
    times = Annotation.objects.filter(assignment__project=project, assignment__status__in=Assignment.COUNTED_STATUSES,
                                      seconds__isnull=False).order_by("seconds").values_list("seconds", flat=True)
    n = times.count()
    if n == 0:
        return 0, None
    middle = [float(t) for t in times[(n - 1) // 2: n // 2 + 1] if t is not None]
    return n, sum(middle) / len(middle)


def project_pay_rate(*, project: Project) -> PayRate:
    pay = ProjectPay.objects.filter(project=project).first()
    marketplace = pay.marketplace if pay else "prolific"
    currency = pay.currency if pay else "GBP"
    n, median = project_median_seconds(project=project)
    hourly = None
    if pay is not None and median:
        hourly = (pay.reward_per_item * Decimal(3600) / Decimal(str(median))).quantize(CENT, rounding=ROUND_HALF_UP)
    return PayRate(marketplace=marketplace, reward_per_item=pay.reward_per_item if pay else None, currency=currency,
                   answers=n, median_seconds=median, hourly=hourly,
                   minimum_hourly=minimum_hourly(marketplace=marketplace, currency=currency),
                   recommended_hourly=recommended_hourly(marketplace=marketplace, currency=currency))
