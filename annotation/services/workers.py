"""Blocking and unblocking workers."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment, WorkerProfile
from annotation.services.engine import set_status, worker_profile

Status = Assignment.Status


def worker_block(*, worker: User, reason: str = "") -> int:
    """Block a worker: they get no more items and their open assignments return to the pool."""
    now = timezone.now()
    with transaction.atomic():
        profile = worker_profile(worker=worker, lock=True)
        profile.blocked, profile.blocked_reason, profile.blocked_at = True, reason, now
        profile.save(update_fields=["blocked", "blocked_reason", "blocked_at"])
        open_ones = list(
            Assignment.objects.select_for_update().filter(worker=worker, status=Status.ASSIGNED).order_by("pk")
        )
        return set_status(assignments=open_ones, new=Status.RETURNED, now=now)


def worker_unblock(*, worker: User) -> None:
    WorkerProfile.objects.filter(user=worker).update(blocked=False, blocked_reason="", blocked_at=None)
