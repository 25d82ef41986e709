"""Reads of the audit log: a project's entries or the whole site's, newest first, as rows for the
CSV download and the API."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.db.models import QuerySet

from annotation.models import AuditEntry, Project

AUDIT_COLUMNS = ("at", "actor", "project", "action", "target", "details")


def audit_entries(*, project: Project | None = None, action: str = "") -> QuerySet[AuditEntry]:
    """The project's entries (None: every entry of the site), newest first; ``action`` keeps one
    kind (``reject``) or a family (``bonus`` keeps ``bonus``, ``bonus:paid`` …)."""
    entries = AuditEntry.objects.select_related("actor", "project").order_by("-at", "-pk")
    if project is not None:
        entries = entries.filter(project=project)
    if action:
        entries = entries.filter(action=action) | entries.filter(action__startswith=f"{action}:")
    return entries


def audit_row(*, entry: AuditEntry) -> dict:
    return {
        "at": entry.at.isoformat(),
        # The name stored with the entry outlives the account; older entries read the account's.
        "actor": entry.actor_name or (entry.actor.get_username() if entry.actor else ""),
        "project": entry.project.slug if entry.project else "",
        "action": entry.action,
        "target": entry.target,
        "details": entry.details,
    }


def audit_rows(*, entries: QuerySet[AuditEntry]) -> Iterator[dict]:
    """One row per entry, ``details`` as JSON text (a CSV cell)."""
    for entry in entries.iterator(chunk_size=2000):
        yield {**audit_row(entry=entry), "details": json.dumps(entry.details, ensure_ascii=False, sort_keys=True)}
