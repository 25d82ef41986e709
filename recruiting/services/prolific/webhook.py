"""Prolific's webhook deliveries: checked, recorded once, and applied as a poll would apply them.

Prolific signs each delivery (docs.prolific.com, API reference, Webhooks, "Verifying"): the
header ``X-Prolific-Request-Signature`` holds the base64 HMAC-SHA256 of the
``X-Prolific-Request-Timestamp`` header (UNIX seconds) followed by the body, keyed with the
workspace's secret (``PROLIFIC_WEBHOOK_SECRET`` here). A delivery is refused when the secret is
not configured, a header is missing, the timestamp is further than
PROLIFIC_WEBHOOK_TOLERANCE_SECONDS from now, or the signature does not match. An accepted one is
recorded by its event id (the ``X-Event-ID`` header; without one, a digest of timestamp and
body), so a delivery sent again is recognised and changes nothing. The signature is checked over
the raw bytes, and only over them: Prolific signs the body it sends (its example re-creates that
body with ``json.dumps``, which gives the same bytes back for a body that ``json.dumps`` wrote),
so no other form of the body is tried, and a body is read only once its signature matched (an
anonymous body is at most 64 KB, ``annotation.body_limits``). A signed body is read by the API's
rule for JSON bodies (``annotation.value_checks.json_document``); one that does not read (not
JSON, nested too deeply, values that cannot be stored) is answered 400: never 500.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.value_checks import DocumentRefused, json_document
from recruiting.models import ProlificStudy, ProlificSubmission, ProlificWebhookEvent
from recruiting.services.prolific.apply import SubmissionUnreadable, prolific_submission_apply

SIGNATURE_HEADER = "X-Prolific-Request-Signature"
TIMESTAMP_HEADER = "X-Prolific-Request-Timestamp"
EVENT_ID_HEADER = "X-Event-ID"
STATUS_EVENT = "submission.status.change"


@dataclass(frozen=True)
class WebhookAnswer:
    status: int
    detail: str


def webhook_signature(*, secret: str, timestamp: str, body: bytes) -> str:
    """The signature Prolific sends with ``body`` at ``timestamp`` (also what tests sign with)."""
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def _signed(*, secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    given = signature.encode("utf-8", "replace")
    return hmac.compare_digest(webhook_signature(secret=secret, timestamp=timestamp, body=body).encode(), given)


def _read(body: bytes) -> Any:
    """The delivery's document by the API's one rule for JSON bodies (size, depth, storable values)."""
    return json_document(body, limit=settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def _text(payload: Mapping[str, Any], *names: str) -> str:
    for name in names:
        value = payload.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()[:100]
    return ""


def _apply(payload: Mapping[str, Any], now: datetime) -> str:
    submission_id = _text(payload, "resource_id", "submission_id", "id")
    if not submission_id:
        return "no submission id in the event"
    known = ProlificSubmission.objects.select_related("study").filter(submission_id=submission_id).first()
    study = known.study if known is not None else None
    if study is None:
        study = ProlificStudy.objects.filter(study_id=_text(payload, "study_id", "study") or "-").first()
    if study is None:
        return f"submission {submission_id} is not of a linked study"
    row = {"id": submission_id, "status": payload.get("status"),
           "participant_id": _text(payload, "participant_id", "participant")}
    try:
        record = prolific_submission_apply(study=study, row=row, now=now, source="webhook")
    except SubmissionUnreadable as exc:
        return str(exc)
    return f"submission {submission_id} is {record.status}"


def prolific_webhook_refusal(*, body: bytes, headers: Mapping[str, str], now: datetime | None = None
                             ) -> WebhookAnswer | None:
    """Why a delivery is refused (403) before its body is read, or None when it is signed and
    current. Costs one HMAC over the raw bytes at most: the API counts signed deliveries apart
    from the rest by it (``annotation.throttles.SignedDeliveryThrottle``)."""
    now = now or timezone.now()
    secret = getattr(settings, "PROLIFIC_WEBHOOK_SECRET", "")
    if not secret:
        return WebhookAnswer(403, "Webhooks are not configured here (PROLIFIC_WEBHOOK_SECRET is not set).")
    signature, stamp = headers.get(SIGNATURE_HEADER, ""), headers.get(TIMESTAMP_HEADER, "")
    if not signature or not stamp:
        return WebhookAnswer(403, f"The delivery lacks the {SIGNATURE_HEADER} or {TIMESTAMP_HEADER} header.")
    if not (stamp.isascii() and stamp.isdigit()) or len(stamp) > 12:
        return WebhookAnswer(403, f"{TIMESTAMP_HEADER} is not a UNIX time in seconds.")
    if abs(now.timestamp() - int(stamp)) > settings.PROLIFIC_WEBHOOK_TOLERANCE_SECONDS:
        return WebhookAnswer(403, "The delivery's timestamp is too far from now: it is refused as stale.")
    if not _signed(secret=secret, timestamp=stamp, body=body, signature=signature):
        return WebhookAnswer(403, "The delivery's signature does not match.")
    return None


def prolific_webhook_receive(*, body: bytes, headers: Mapping[str, str], now: datetime | None = None) -> WebhookAnswer:
    """Check, record and apply one delivery; the answer's status and words say what happened."""
    now = now or timezone.now()
    refusal = prolific_webhook_refusal(body=body, headers=headers, now=now)
    if refusal is not None:
        return refusal
    stamp = headers[TIMESTAMP_HEADER]
    sent_at = datetime.fromtimestamp(int(stamp), tz=UTC)
    try:
        parsed = _read(body)
    except DocumentRefused as exc:
        return WebhookAnswer(400, f"The delivery's body cannot be read: {exc}")
    if not isinstance(parsed, dict):
        return WebhookAnswer(400, "The delivery's body is not a JSON object.")
    event_id = (headers.get(EVENT_ID_HEADER, "").strip()[:200]
                or hashlib.sha256(stamp.encode() + body).hexdigest())
    event_type = _text(parsed, "event_type") or "unknown"
    try:
        with transaction.atomic():
            event = ProlificWebhookEvent.objects.create(
                event_id=event_id, event_type=event_type, sent_at=sent_at, received_at=now,
                submission_id=_text(parsed, "resource_id", "submission_id", "id"),
                status=str(parsed.get("status") or "")[:20])
            outcome = _apply(parsed, now) if event_type == STATUS_EVENT else f"{event_type} events are not used"
            event.outcome = outcome[:300]
            event.save(update_fields=["outcome"])
    except IntegrityError:
        return WebhookAnswer(200, "This event was received before; nothing was done.")
    return WebhookAnswer(200, outcome)
