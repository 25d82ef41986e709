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
    """Record one staff action. ``actor`` None: the platform itself (a rule, a job)."""
    who = actor if actor is not None and actor.is_authenticated else None
    return AuditEntry.objects.create(at=timezone.now(), actor=who, project=project, action=action,
                                     target=target[:300], details=scrubbed(dict(details or {})))
