"""The refresh that stores a large project's tally (the job's work); what a tally is, and the
reads that show it, are in ``annotation.selectors.tallies``."""

from __future__ import annotations

from django.core.cache import cache

from annotation.models import Project
from annotation.selectors.tallies import Tally, tally_count, tally_key, tally_queued_key


def tally_refresh(*, project_id: int) -> Tally | None:
    """Count a project's tally and keep it in the cache (the job's work)."""
    project = Project.objects.filter(pk=project_id).first()
    try:
        if project is None:
            return None
        tally = tally_count(project=project)
        cache.set(tally_key(project_id=project_id), tally, timeout=None)
        return tally
    finally:
        cache.delete(tally_queued_key(project_id=project_id))
