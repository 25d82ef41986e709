"""The study's automatic decisions and screen-outs, applied by every sync.

- ``auto_reject``: a completed submission (awaiting review) of a worker a quality rule blocked
  in the project is rejected, with a category and a message drawn from the rule, and the rule's
  decision and evidence in the audit entry.
- ``auto_approve``: completed submissions of workers in good standing (active in the project, no
  rule blocked them) are approved in one bulk call. Anyone else waits for a staff member.
- Screen-out: a worker screened out by a failed qualification is screened out on Prolific once
  (``screen_out_sent_at``); one not yet sent, or whose call failed, is sent by the next sync.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from annotation.models import Standing
from annotation.quality_port import block_decisions, workers_in
from annotation.services.audit import audit_record
from recruiting.models import ProlificStudy, ProlificSubmission
from recruiting.providers.prolific.client import prolific_submissions_screen_out
from recruiting.providers.prolific.http import MarketplaceError
from recruiting.services.prolific.decisions import (
    DecisionRefused,
    prolific_submission_decide,
    prolific_submissions_approve,
)

Status = ProlificSubmission.Status
How = ProlificSubmission.DecidedHow
# The rejection category that says best why each kind of rule (quality control's
# ``QualityRule.Kind``) blocked the worker.
REJECTION_CATEGORY = {"gold_accuracy": "FAILED_CHECK", "competence": "LOW_EFFORT", "too_fast": "TOO_QUICKLY",
                      "position_bias": "LOW_EFFORT", "automation": "OTHER"}


@dataclass
class AutoOutcome:
    approved: int = 0
    rejected: int = 0
    screened_out: int = 0
    errors: list[str] = field(default_factory=list)


def _waiting(study: ProlificStudy) -> QuerySet[ProlificSubmission]:
    return (study.submissions.select_related("worker", "project")
            .filter(status=Status.AWAITING_REVIEW, worker__isnull=False, decided_how="").order_by("pk"))


def rejection_message(*, decision: Any) -> str:
    """What the participant is told (Prolific asks for at least 100 characters)."""
    return (f"Your submission was reviewed by the study's quality checks and did not meet its bar: "
            f"{decision.get_kind_display().lower()}. Answers were checked against questions with known "
            f"answers and the study's other quality rules before this decision was made.")


def _auto_reject(study: ProlificStudy, outcome: AutoOutcome) -> set[int]:
    """Reject waiting submissions of blocked workers; returns the workers a rule blocked."""
    waiting = list(_waiting(study))
    worker_ids = {s.worker_id for s in waiting}
    blocked = workers_in(project_id=study.project_id, worker_ids=worker_ids, state=Standing.BLOCKED)
    # The latest decision of a rule that blocked each of them.
    decisions = block_decisions(project_id=study.project_id, worker_ids=blocked)
    if not study.auto_reject:
        return set(decisions)
    for s in waiting:
        decision = decisions.get(s.worker_id or 0)
        if decision is None:
            continue
        evidence = {"decision": decision.pk, "kind": decision.kind, "trigger": decision.trigger,
                    "decided_at": decision.decided_at.isoformat(), "figures": decision.evidence}
        try:
            prolific_submission_decide(submission=s, approve=False, actor=None, how=How.AUTO, evidence=evidence,
                                       message=rejection_message(decision=decision),
                                       rejection_category=REJECTION_CATEGORY.get(decision.kind, "OTHER"))
        except DecisionRefused as refused:
            outcome.errors.append(refused.message)
        else:
            outcome.rejected += 1
    return set(decisions)


def _auto_approve(study: ProlificStudy, ruled_out: set[int], outcome: AutoOutcome) -> None:
    waiting = [s for s in _waiting(study) if s.worker_id not in ruled_out]
    good = workers_in(project_id=study.project_id, worker_ids={s.worker_id for s in waiting}, state=Standing.ACTIVE)
    chosen = [s for s in waiting if s.worker_id in good]
    if not chosen:
        return
    try:
        done = prolific_submissions_approve(submissions=chosen, actor=None, how=How.AUTO)
    except DecisionRefused as refused:
        outcome.errors.append(refused.message)
    else:
        outcome.approved += len(done.decided)


def prolific_screen_outs_send(*, study: ProlificStudy, outcome: AutoOutcome | None = None) -> AutoOutcome:
    """Screen out on Prolific the submissions of workers screened out in the project, once."""
    outcome = outcome or AutoOutcome()
    pending = list(study.submissions.filter(
        screen_out_sent_at__isnull=True, status__in=[Status.ACTIVE, Status.AWAITING_REVIEW],
        worker__standings__project_id=study.project_id, worker__standings__state=Standing.SCREENED_OUT,
    ).order_by("pk"))
    if not pending:
        return outcome
    ids = [s.submission_id for s in pending]
    try:
        prolific_submissions_screen_out(study_id=study.study_id, submission_ids=ids)
    except MarketplaceError as error:
        text = f"{error}: {error.detail}"[:500] if error.detail else str(error)[:500]
        ProlificSubmission.objects.filter(pk__in=[s.pk for s in pending]).update(last_error=text)
        outcome.errors.append(f"Screening out {len(ids)} submission(s) failed: {text}")
        return outcome
    now = timezone.now()
    ProlificSubmission.objects.filter(pk__in=[s.pk for s in pending]).update(
        screen_out_sent_at=now, status=Status.SCREENED_OUT, last_error="")
    audit_record(actor=None, action="prolific_screen_out", project=study.project, target=f"{len(ids)} submission(s)",
                 details={"submissions": ids[:500], "workers": [s.worker_id for s in pending][:500]})
    outcome.screened_out += len(ids)
    return outcome


def prolific_auto_apply(*, study: ProlificStudy) -> AutoOutcome:
    """Screen-outs not yet sent, then the study's automatic rejections and approvals."""
    outcome = prolific_screen_outs_send(study=study)
    ruled_out = _auto_reject(study, outcome)
    if study.auto_approve:
        _auto_approve(study, ruled_out, outcome)
    return outcome
