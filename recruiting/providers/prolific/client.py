"""Prolific's submissions API, over ``prolific_call``: listing a study's submissions page by
page, approving or rejecting one, approving many, and screening out.

Shapes as Prolific documents them (docs.prolific.com, API reference, "Submissions" and
"Studies"): a list answers ``{"results": [...], "_links": {"next": {"href": URL or null}}}``;
a submission carries ``id``, ``participant_id`` (or ``participant``), ``status``,
``started_at`` and ``completed_at``. Every failure raises ``MarketplaceError``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

from recruiting.providers.prolific.http import MarketplaceError, prolific_call

PAGE_SIZE = 100
# A study has at most a few thousand places: past this many pages something loops.
MAX_PAGES = 1000
# Prolific's rejection categories (transition with action REJECT).
REJECTION_CATEGORIES = ("TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
                        "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER")
# Prolific refuses a rejection whose message to the participant is shorter than this.
REJECTION_MESSAGE_MIN = 100


def _next_page(payload: dict[str, Any]) -> str | None:
    """The ``page`` parameter of the next page's address, if there is one."""
    href = ((payload.get("_links") or {}).get("next") or {}).get("href")
    if not href:
        return None
    pages = parse_qs(urlsplit(str(href)).query).get("page")
    return pages[0] if pages else None


def prolific_submissions_list(*, study_id: str) -> Iterator[dict[str, Any]]:
    """Every submission of the study, page after page."""
    page: str | None = "1"
    for _ in range(MAX_PAGES):
        payload = prolific_call(method="GET", path="submissions/",
                                params={"study": study_id, "page": page or "1", "page_size": str(PAGE_SIZE)})
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise MarketplaceError("Prolific answered the submissions list with an unexpected body", status=200)
        for row in payload["results"]:
            if isinstance(row, dict):
                yield row
        page = _next_page(payload)
        if page is None:
            return
    raise MarketplaceError(f"Prolific's submissions list of study {study_id} ran past {MAX_PAGES} pages")


def prolific_submission_transition(*, submission_id: str, action: str, message: str = "",
                                   rejection_category: str = "") -> dict[str, Any]:
    """Approve (``APPROVE``) or reject (``REJECT``, with a message of at least 100 characters
    and one of REJECTION_CATEGORIES) one submission; returns the submission as Prolific answers."""
    if action not in ("APPROVE", "REJECT"):
        raise ValueError(f"unknown transition {action!r}; known: APPROVE, REJECT")
    body: dict[str, Any] = {"action": action}
    if action == "REJECT":
        if rejection_category not in REJECTION_CATEGORIES:
            raise ValueError(f"unknown rejection category {rejection_category!r}; known: {', '.join(REJECTION_CATEGORIES)}")
        if len(message) < REJECTION_MESSAGE_MIN:
            raise ValueError(f"a rejection message must hold at least {REJECTION_MESSAGE_MIN} characters")
        body.update(message=message, rejection_category=rejection_category)
    answer = prolific_call(method="POST", path=f"submissions/{submission_id}/transition/", body=body)
    return answer if isinstance(answer, dict) else {}


def prolific_submissions_bulk_approve(*, submission_ids: Sequence[str]) -> None:
    """Approve many submissions at once (Prolific approves them in the background)."""
    if submission_ids:
        prolific_call(method="POST", path="submissions/bulk-approve/", body={"submission_ids": list(submission_ids)})


def prolific_submissions_screen_out(*, study_id: str, submission_ids: Sequence[str]) -> None:
    """Screen out submissions of the study (they are paid the study's fixed screen-out reward);
    the places they held are not added back."""
    if submission_ids:
        prolific_call(method="POST", path=f"studies/{study_id}/screen-out-submissions/",
                      body={"submission_ids": list(submission_ids), "increase_places": False})
