"""The audit log: every staff action that changes work, money, data or settings is recorded with
who, when and what (``AuditEntry``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from annotation.models import AuditEntry, Project
from annotation.value_checks import scrubbed


def audit_record(*, actor: User | None, action: str, project: Project | None = None, target: str = "",
                 details: Mapping[str, Any] | None = None) -> AuditEntry:
    """Record one staff action. ``actor`` None: the platform itself (a rule, a job, a command).
    The actor's user name is stored with the entry: it outlives the account."""
    who = actor if actor is not None and actor.is_authenticated else None
    return AuditEntry.objects.create(at=timezone.now(), actor=who, actor_name=who.get_username() if who else "",
                                     project=project, action=action, target=target[:300],
                                     details=scrubbed(dict(details or {})))


def import_record(*, actor: User | None, project: Project | None, kind: str, source: str = "",
                  counts: Mapping[str, Any]) -> AuditEntry:
    """Record an import (items and gold, crowd results, media, arguments), whatever path it took
    (a page, the API, a job, a command): called inside the import's transaction, so the entry
    commits with the rows or not at all. ``source`` names the file (or the command)."""
    return audit_record(actor=actor, action=f"import:{kind}", project=project, target=source or kind,
                        details=dict(counts))
