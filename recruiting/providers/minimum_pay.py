"""The lowest hourly pay each marketplace allows, per currency: one small table that the pay
per hour check (``recruiting.selectors.pay_rate``) and panel presets refer to.

Prolific: "the minimum pay allowed is £6.00 / $8.00 per hour" (researcher help, "Prolific's
payment principles"); it recommends at least £9.00 / $12.00, and works the rate out from the
median completion time, as this platform does.
"""

from __future__ import annotations

from decimal import Decimal

MINIMUM_HOURLY: dict[str, dict[str, Decimal]] = {
    "prolific": {"GBP": Decimal("6.00"), "USD": Decimal("8.00")},
}
RECOMMENDED_HOURLY: dict[str, dict[str, Decimal]] = {
    "prolific": {"GBP": Decimal("9.00"), "USD": Decimal("12.00")},
}


def minimum_hourly(*, marketplace: str, currency: str) -> Decimal | None:
    """The marketplace's minimum pay per hour in this currency; None when it documents none."""
    return MINIMUM_HOURLY.get(marketplace, {}).get(currency.upper())


def recommended_hourly(*, marketplace: str, currency: str) -> Decimal | None:
    return RECOMMENDED_HOURLY.get(marketplace, {}).get(currency.upper())
