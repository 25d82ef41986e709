"""What an annotator is told about their own standing in a project: why they get no items
(blocked, screened out, a failed qualification) and, once they answered a check, the feedback.
Nothing here is read before an answer: what a worker receives with an item never depends on
whether it is a gold question."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User

from annotation.models import Project, Standing, WorkerProfile
from quality.models import QualityPolicy, WorkerStanding


@dataclass(frozen=True)
class StopFacts:
    """Why a worker gets no item in a project, beyond the engine's reason."""

    account_blocked: bool  # blocked everywhere, not only in this project
    policy: QualityPolicy


def stop_facts(*, project: Project, worker: User) -> StopFacts:
    blocked = WorkerProfile.objects.filter(user=worker, blocked=True).exists()
    policy = QualityPolicy.objects.filter(project=project).first() or QualityPolicy(project=project)
    return StopFacts(account_blocked=blocked, policy=policy)


def standing_state(*, project: Project, worker: User) -> str:
    """The worker's standing in the project ("active" before their first item)."""
    found = (WorkerStanding.objects.filter(project=project, worker=worker).values_list("state", flat=True).first())
    return found or Standing.ACTIVE
