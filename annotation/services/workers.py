"""Workers: blocking and unblocking, the user name of a worker known by a marketplace or panel
id, and consent to a project's welcome text."""

from __future__ import annotations

import re
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment, Consent, Project, WorkerProfile
from annotation.services.audit import audit_record
from annotation.services.engine import set_status, worker_profile

Status = Assignment.Status
# A worker id a marketplace or panel gives (a study link's parameter, a crowd-results file's column).
EXTERNAL_ID_RE = re.compile(r"^[A-Za-z0-9_.@-]{1,100}$")


def marketplace_username(*, source: str, external_id: str) -> str:
    """The user name of a worker known by a panel's (``source``) worker id."""
    # "+" is in neither a source name nor a worker id, so two identities never share a name.
    return f"{source}+{external_id}"


def consent_accept(*, project: Project, worker: User, now: datetime | None = None) -> Consent:
    """Record that the worker accepted the project's welcome and consent text (once; the first
    acceptance and the text it was given to stay on record)."""
    consent, _ = Consent.objects.get_or_create(
        project=project, worker=worker,
        defaults={"text": project.consent_text, "accepted_at": now or timezone.now()},
    )
    return consent


def worker_block(*, worker: User, reason: str = "", actor: User | None = None) -> int:
    """Block a worker everywhere: they get no more items and their open assignments return to
    the pool. A staff member's block (``actor``) goes to the audit log."""
    now = timezone.now()
    with transaction.atomic():
        profile = worker_profile(worker=worker, lock=True)
        profile.blocked, profile.blocked_reason, profile.blocked_at = True, reason, now
        profile.save(update_fields=["blocked", "blocked_reason", "blocked_at"])
        open_ones = list(
            Assignment.objects.select_for_update().filter(worker=worker, status=Status.ASSIGNED).order_by("pk")
        )
        returned = set_status(assignments=open_ones, new=Status.RETURNED, now=now)
        if actor is not None:
            audit_record(actor=actor, action="block", target=f"worker {worker.get_username()}",
                         details={"worker": worker.pk, "reason": reason, "returned_items": returned})
        return returned


def worker_unblock(*, worker: User, actor: User | None = None) -> None:
    with transaction.atomic():
        WorkerProfile.objects.filter(user=worker).update(blocked=False, blocked_reason="", blocked_at=None)
        if actor is not None:
            audit_record(actor=actor, action="unblock", target=f"worker {worker.get_username()}",
                         details={"worker": worker.pk})
