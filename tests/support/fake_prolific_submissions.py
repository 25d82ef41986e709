"""The fake's submissions routes, modelled on Prolific's API reference: list (paged, with
``_links.next``), transition (APPROVE / REJECT, only from AWAITING REVIEW, a rejection needing a
category and a message of 100 characters), bulk approve, and screen out; plus what a test does
to play a participant (join, complete, return, time out).

State lives in ``FakeProlific.submissions``: {submission id: {id, study_id, participant_id,
participant, status, started_at, completed_at, bonus_payments}} (the bonus routes in
fake_prolific_bonuses.py pay into ``bonus_payments``). A test makes the list of a study answer slowly (to time out
the client) with ``state.studies[study_id] = {"delay_seconds": n}``.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from tests.support.fake_prolific import FakeProlific, FakeRequest, route

CATEGORIES = {"TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
              "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER"}


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _error(detail: str) -> dict[str, Any]:
    return {"error": {"detail": detail, "error_code": 140100}}


# --- what a test does -------------------------------------------------------------------------


def participant_join(state: FakeProlific, *, study_id: str, participant_id: str) -> str:
    """A participant takes a place in the study: an ACTIVE submission; returns its id."""
    submission_id = state.new_id("sub")
    with state.lock:
        state.submissions[submission_id] = {"id": submission_id, "study_id": study_id,
                                            "participant_id": participant_id, "participant": participant_id,
                                            "status": "ACTIVE", "started_at": _now(), "completed_at": None,
                                            "bonus_payments": []}
    return submission_id


def participant_set(state: FakeProlific, submission_id: str, status: str) -> dict[str, Any]:
    """Move a submission as the participant (or Prolific) would: AWAITING REVIEW (completed),
    RETURNED, TIMED-OUT."""
    with state.lock:
        row = state.submissions[submission_id]
        row["status"] = status
        if status == "AWAITING REVIEW":
            row["completed_at"] = _now()
        return dict(row)


# --- routes -----------------------------------------------------------------------------------


@route("GET", r"submissions/")
def list_submissions(state: FakeProlific, request: FakeRequest) -> tuple[int, Any]:
    study = (request.query.get("study") or [""])[0]
    delay = state.studies.get(study, {}).get("delay_seconds")
    if delay:
        time.sleep(delay)
    page = int((request.query.get("page") or ["1"])[0] or 1)
    size = int((request.query.get("page_size") or ["20"])[0] or 20)
    rows = [dict(r) for r in state.submissions.values() if not study or r["study_id"] == study]
    chunk = rows[(page - 1) * size: page * size]
    more = page * size < len(rows)
    nxt = f"{state.url}submissions/?study={study}&page={page + 1}&page_size={size}" if more else None
    return 200, {"results": chunk, "_links": {"next": {"href": nxt}, "previous": {"href": None}},
                 "meta": {"count": len(rows)}}


@route("GET", r"submissions/(?P<sid>[^/]+)/")
def get_submission(state: FakeProlific, request: FakeRequest) -> tuple[int, Any]:
    row = state.submissions.get(request.args["sid"])
    return (200, dict(row)) if row else (404, _error("Not found."))


@route("POST", r"submissions/(?P<sid>[^/]+)/transition/")
def transition(state: FakeProlific, request: FakeRequest) -> tuple[int, Any]:
    row = state.submissions.get(request.args["sid"])
    if row is None:
        return 404, _error("Not found.")
    body = request.body if isinstance(request.body, dict) else {}
    action = body.get("action")
    target = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}.get(str(action))
    if target is None:
        return 400, _error(f"Unknown action {action!r}.")
    if row["status"] == target:  # idempotent, as the reference says
        return 200, dict(row)
    if row["status"] != "AWAITING REVIEW":
        return 400, _error(f"A submission in status {row['status']} cannot be transitioned.")
    if target == "REJECTED":
        if body.get("rejection_category") not in CATEGORIES:
            return 400, _error("rejection_category is required.")
        if len(str(body.get("message") or "")) < 100:
            return 400, _error("message must be at least 100 characters long.")
    row["status"] = target
    return 200, dict(row)


@route("POST", r"submissions/bulk-approve/")
def bulk_approve(state: FakeProlific, request: FakeRequest) -> tuple[int, Any]:
    body = request.body if isinstance(request.body, dict) else {}
    ids = body.get("submission_ids")
    if not isinstance(ids, list) or not ids:
        return 400, _error("submission_ids is required.")
    for sid in ids:
        row = state.submissions.get(sid)
        if row is not None and row["status"] == "AWAITING REVIEW":
            row["status"] = "APPROVED"
    return 200, {"message": "The request to bulk approve has been made successfully."}


@route("POST", r"studies/(?P<study>[^/]+)/screen-out-submissions/")
def screen_out(state: FakeProlific, request: FakeRequest) -> tuple[int, Any]:
    body = request.body if isinstance(request.body, dict) else {}
    ids = body.get("submission_ids")
    if not isinstance(ids, list) or not ids:
        return 400, _error("submission_ids is required.")
    for sid in ids:
        row = state.submissions.get(sid)
        if row is None or row["study_id"] != request.args["study"]:
            return 400, _error(f"Submission {sid} is not in this study.")
    for sid in ids:
        row = state.submissions[sid]
        if row["status"] in ("ACTIVE", "AWAITING REVIEW"):
            row["status"] = "SCREENED OUT"
    return 200, {"message": "The request to bulk screen out has been made successfully."}
