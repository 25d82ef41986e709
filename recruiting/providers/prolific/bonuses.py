"""Prolific's bonus API, as its reference describes it (docs.prolific.com, "Bonuses"):

- ``POST submissions/bonus-payments/`` with ``study_id`` and ``csv_bonuses`` (one
  ``<participant_id>,<amount>`` line per bonus, the amount a decimal in the study's currency:
  ``4.25`` is £4.25 in a GBP study) sets up a bulk bonus payment and pays nothing; the answer's
  ``id`` is the one to pay, ``amount`` and ``total_amount`` are in pence/cents. A participant who
  did not take part in the study gets a 400 naming the ids.
- ``POST bulk-bonus-payments/{id}/pay/`` pays it, asynchronously. It is NOT idempotent: a second
  call pays everyone again. The callers send it at most once per bulk payment.
- ``GET submissions/{id}/`` gives a submission's ``bonus_payments``: what was paid on it, in
  pence/cents. That is the only read-back of what was paid.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from recruiting.providers.prolific.http import MarketplaceError, prolific_call

CENTS = Decimal(100)


@dataclass(frozen=True)
class BulkBonus:
    """A bulk bonus payment Prolific set up: its id and what it will cost, in pence/cents."""

    id: str
    amount_cents: int
    total_cents: int


def csv_bonuses(lines: Iterable[tuple[str, Decimal]]) -> str:
    """``<participant_id>,<amount>`` lines, the amount with two decimals (never 30 for 0.30)."""
    return "".join(f"{pid},{amount.quantize(Decimal('0.01'))}\n" for pid, amount in lines)


def _cents(value: Any) -> int:
    try:
        return int(round(float(value or 0)))
    except (TypeError, ValueError):
        return 0


def bulk_bonus_setup(*, study_id: str, csv: str) -> BulkBonus:
    """Set up (not pay) a bulk bonus payment; raises MarketplaceError when refused."""
    body = prolific_call(method="POST", path="submissions/bonus-payments/",
                         body={"study_id": study_id, "csv_bonuses": csv})
    if not isinstance(body, dict) or not body.get("id"):
        raise MarketplaceError("Prolific set up the bonus payment without giving its id", status=200, detail=body)
    return BulkBonus(id=str(body["id"]), amount_cents=_cents(body.get("amount")),
                     total_cents=_cents(body.get("total_amount")))


def bulk_bonus_pay(*, bulk_id: str) -> None:
    """Pay a bulk bonus payment. Not idempotent on Prolific's side: send it once."""
    prolific_call(method="POST", path=f"bulk-bonus-payments/{bulk_id}/pay/", body={})


def study_submissions(*, study_id: str) -> list[dict[str, Any]]:
    """The study's submissions (id, participant), every page."""
    found: list[dict[str, Any]] = []
    path: str | None = f"studies/{study_id}/submissions/"
    while path:
        body = prolific_call(method="GET", path=path)
        results = body.get("results", []) if isinstance(body, dict) else []
        found.extend(r for r in results if isinstance(r, dict))
        following = body.get("_links", {}).get("next", {}).get("href") if isinstance(body, dict) else None
        # A next page is given as a full address; the transport takes paths under the API's root.
        path = following.split("/api/v1/", 1)[-1] if isinstance(following, str) and following else None
    return found


def submission_bonus_payments(*, submission_id: str) -> list[int]:
    """The bonuses paid on a submission, in pence/cents (empty when none)."""
    body = prolific_call(method="GET", path=f"submissions/{submission_id}/")
    paid = body.get("bonus_payments") if isinstance(body, dict) else None
    return [_cents(v) for v in paid or []]
