"""Applying a quality rule's verdict: the decision is recorded with its evidence, and the worker
is blocked in the project (their open item returns to the pool) or sent to review.

A rule acts once per worker and state: a worker already blocked is not blocked again, and a
worker a staff member moved back to active after a decision is judged afresh only on new
evidence (the rule's next trigger). Signals alone never block: only a rule does.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.models import Project, Standing
from quality.models import QualityRule, RuleDecision
from quality.services.standing import standing_for, standing_set

# What each action moves a worker to.
ACTION_STATE = {QualityRule.Action.BLOCK: Standing.BLOCKED, QualityRule.Action.REVIEW: Standing.REVIEW}
# A worker in one of these states is not moved by a rule: the harsher or final state stays.
NOT_MOVED = {
    QualityRule.Action.BLOCK: (Standing.BLOCKED, Standing.SCREENED_OUT),
    QualityRule.Action.REVIEW: (Standing.BLOCKED, Standing.SCREENED_OUT, Standing.REVIEW),
}


def rule_decide(*, rule: QualityRule, project: Project, worker: User, evidence: Mapping[str, Any], trigger: str,
                now: datetime | None = None) -> RuleDecision | None:
    """Record that ``rule`` found ``worker`` below its bar, and act on it. None when the worker
    is already in the state the action leads to (or a harsher one): nothing is recorded twice."""
    now = now or timezone.now()
    with transaction.atomic():
        standing = standing_for(project=project, worker=worker, lock=True)
        if standing.state in NOT_MOVED[QualityRule.Action(rule.action)]:
            return None
        decision = RuleDecision.objects.create(
            project=project, worker=worker, rule=rule, kind=rule.kind, action=rule.action,
            evidence=dict(evidence), trigger=trigger[:100], decided_at=now)
        standing_set(project=project, worker=worker, state=ACTION_STATE[QualityRule.Action(rule.action)],
                     reason=f"{rule.get_kind_display()} (rule {rule.pk})", now=now, audit=False)
    return decision


def rules_enabled(*, project: Project, kind: str) -> list[QualityRule]:
    return list(QualityRule.objects.filter(project=project, kind=kind, enabled=True).order_by("pk"))
