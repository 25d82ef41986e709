"""Writes about workers arriving from a marketplace (Prolific, MTurk, a generic study link): who
they are, whether the project takes them, their account, and their consent."""

from __future__ import annotations

import re
import secrets

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import Consent, Project, WorkerProfile
from annotation.services.accounts import AccountError, user_create

EXTERNAL_ID_RE = re.compile(r"^[A-Za-z0-9_.@-]{1,100}$")
# Query parameters that carry a worker id, by marketplace, in the order they are looked for;
# a generic worker_id link names its marketplace in ``source`` ("link" when it does not).
MARKETPLACE_PARAMS = (("PROLIFIC_PID", "prolific"), ("workerId", "mturk"), ("worker_id", None))
LINK_SOURCE = "link"
MTURK_PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"


def marketplace_identity(*, params) -> tuple[str, str] | None:
    """(source, worker id) from a marketplace link's query parameters, if it carries one.

    Prolific and MTurk are known by their own parameters; ``source`` names the marketplace only
    for the generic ``worker_id`` link, so no link can pass a worker off as another's.
    """
    for param, source in MARKETPLACE_PARAMS:
        value = (params.get(param) or "").strip()
        if value:
            if source is None:
                source = (params.get("source") or LINK_SOURCE).strip().lower()[:40]
            return source, value
    return None


def is_mturk_preview(*, params) -> bool:
    """MTurk shows a HIT before the worker accepts it with this placeholder assignment id."""
    return params.get("assignmentId") == MTURK_PREVIEW_ASSIGNMENT


def marketplace_check(*, project: Project, source: str, external_id: str | None = None) -> None:
    """Refuse a link the project does not take: entry closed, unknown source, malformed id."""
    if not project.external_entry:
        raise AccountError("This project does not take workers from marketplace links.")
    allowed = project.allowed_sources
    if source not in allowed:
        accepted = ", ".join(allowed) if allowed else "none"
        raise AccountError(
            f"This project does not accept workers from “{source}” (it accepts: {accepted}). "
            "Please open the study again from the marketplace that sent you."
        )
    if external_id is not None and not EXTERNAL_ID_RE.match(external_id):
        raise AccountError("The worker id in the link is not valid.")


def marketplace_account(*, source: str, external_id: str) -> User | None:
    """The account already tied to a marketplace worker id, if any."""
    profile = WorkerProfile.objects.select_related("user").filter(source=source, external_id=external_id).first()
    return profile.user if profile else None


def marketplace_username(*, source: str, external_id: str) -> str:
    # "+" is in neither a source name nor a worker id, so two identities never share a name.
    return f"{source}+{external_id}"


def _marketplace_user_create(*, source: str, external_id: str) -> User:
    base = marketplace_username(source=source, external_id=external_id)
    for attempt in range(5):
        # Someone may already hold the name (an annotator created by hand, say): then a suffix.
        username = base if attempt == 0 else f"{base}+{secrets.token_hex(3)}"
        try:
            with transaction.atomic():
                user = user_create(username=username)
                WorkerProfile.objects.filter(user=user).update(source=source, external_id=external_id)
            return user
        except IntegrityError:
            # The same worker opened the link twice at once; the other request made the account.
            existing = marketplace_account(source=source, external_id=external_id)
            if existing is not None:
                return existing
    raise AccountError("No account could be created for this worker id; please open the link again.")


def worker_from_marketplace(*, project: Project, source: str, external_id: str) -> User:
    """The account tied to a marketplace worker id, created on first arrival."""
    marketplace_check(project=project, source=source, external_id=external_id)
    user = marketplace_account(source=source, external_id=external_id)
    if user is None:
        user = _marketplace_user_create(source=source, external_id=external_id)
    project.members.add(user)
    return user


def consent_accept(*, project: Project, worker: User, now=None) -> Consent:
    """Record that the worker accepted the project's welcome and consent text (once; the first
    acceptance and the text it was given to stay on record)."""
    consent, _ = Consent.objects.get_or_create(
        project=project, worker=worker,
        defaults={"text": project.consent_text, "accepted_at": now or timezone.now()},
    )
    return consent
