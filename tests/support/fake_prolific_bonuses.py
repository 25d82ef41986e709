"""The fake's bonus routes, after Prolific's reference ("Bonuses", "Retrieve a submission"):

- ``POST submissions/bonus-payments/`` {study_id, csv_bonuses}: one ``<participant or submission
  id>,<decimal amount>`` line per bonus, in the study's currency; ids that did not take part in
  the study get a 400 naming them; a bulk payment is recorded (nothing paid) and answered with
  ``id``, ``study``, ``amount``, ``fees``, ``total_amount`` in pence/cents.
- ``POST bulk-bonus-payments/{id}/pay/``: pays every line, EVERY time it is called (the real
  endpoint is not idempotent), by appending the amount to the submission's ``bonus_payments``;
  a test sets ``bulk["answer_after_pay"] = 500`` to have it pay and then answer an error (the
  answer lost on the way).
- ``GET studies/{id}/submissions/``: the read-back (with ``GET submissions/{id}/`` of
  fake_prolific_submissions.py, which answers a submission whole, its ``bonus_payments`` too).

Submissions live in ``state.submissions`` (id → {id, study_id, participant, participant_id,
status, bonus_payments}); ``add_submission`` puts one there.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from tests.support.fake_prolific import FakeProlific, FakeRequest, route

# The fake's own service fee on bonuses (a stand-in, not Prolific's rate).
FAKE_FEE_RATE = Decimal("0.333")


def add_submission(state: FakeProlific, *, study_id: str, participant: str, status: str = "APPROVED") -> str:
    sid = state.new_id("sub")
    with state.lock:
        state.studies.setdefault(study_id, {"id": study_id})
        state.submissions[sid] = {"id": sid, "study_id": study_id, "participant": participant,
                                  "participant_id": participant, "status": status, "bonus_payments": []}
    return sid


def paid_to(state: FakeProlific, participant: str) -> list[int]:
    """Every bonus paid to a participant, in pence/cents, across their submissions."""
    return [c for s in state.submissions.values() if s["participant"] == participant for c in s["bonus_payments"]]


def _submission_for(state: FakeProlific, study_id: str, some_id: str) -> dict[str, Any] | None:
    for s in state.submissions.values():
        if s["study_id"] == study_id and some_id in (s["id"], s["participant"]):
            return s
    return None


@route("POST", r"submissions/bonus-payments/")
def setup_bonus_payments(state: FakeProlific, request: FakeRequest) -> tuple[int, Any]:
    body = request.body if isinstance(request.body, dict) else {}
    study_id, csv = body.get("study_id"), body.get("csv_bonuses")
    if not study_id or not isinstance(csv, str) or not csv.strip():
        return 400, {"error": {"detail": "study_id and csv_bonuses are required"}}
    lines, unknown, bad = [], [], []
    for raw in csv.strip().splitlines():
        some_id, _, amount = raw.partition(",")
        try:
            value = Decimal(amount.strip())
        except InvalidOperation:
            bad.append(raw)
            continue
        submission = _submission_for(state, study_id, some_id.strip())
        if submission is None:
            unknown.append(some_id.strip())
            continue
        lines.append((submission["id"], int((value * 100).to_integral_value())))
    if bad:
        return 400, {"error": {"detail": f"Amounts must be decimal values: {', '.join(bad)}"}}
    if unknown:
        return 400, {"error": {"detail": f"Invalid participant or submission ids for this study: {', '.join(unknown)}"}}
    amount = sum(c for _, c in lines)
    fees = int((Decimal(amount) * FAKE_FEE_RATE).to_integral_value())
    bulk_id = state.new_id("bulk")
    state.bulk_bonuses[bulk_id] = {"id": bulk_id, "study": study_id, "lines": lines, "amount": amount,
                                   "fees": fees, "total_amount": amount + fees, "pay_calls": 0}
    return 201, {"id": bulk_id, "study": study_id, "amount": amount, "fees": fees, "total_amount": amount + fees}


@route("POST", r"bulk-bonus-payments/(?P<id>[^/]+)/pay/")
def pay_bonus_payments(state: FakeProlific, request: FakeRequest) -> tuple[int, Any]:
    bulk = state.bulk_bonuses.get(request.args["id"])
    if bulk is None:
        return 404, {"error": {"detail": "Not found."}}
    bulk["pay_calls"] += 1
    for sid, cents in bulk["lines"]:
        state.submissions[sid]["bonus_payments"].append(cents)
        state.payments.append({"bulk": bulk["id"], "submission": sid, "amount": cents})
    status = bulk.pop("answer_after_pay", None)
    if status:
        return status, {"error": {"detail": "injected failure after paying"}}
    return 202, {"detail": "Successfully received bonus payments request."}


@route("GET", r"studies/(?P<id>[^/]+)/submissions/")
def list_study_submissions(state: FakeProlific, request: FakeRequest) -> tuple[int, Any]:
    rows = [{k: s[k] for k in ("id", "study_id", "participant_id", "status")}
            for s in state.submissions.values() if s["study_id"] == request.args["id"]]
    return 200, {"results": rows, "_links": {"next": {"href": None}}, "meta": {"count": len(rows)}}
