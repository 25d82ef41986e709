"""Reads about a project's linked Prolific study: its submissions with each participant's work
(answers, gold accuracy, standing) for review, the participant's submission on the worker page
and API, whether a participant left the study, and the study's last sync."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Count, F, Q

from annotation.models import Assignment, Project, Purpose
from annotation.quality_port import worker_standings
from annotation.worker_figures import interval_of
from recruiting.models import ProlificStudy, ProlificSubmission, ProlificSyncJob

ROWS_LIMIT = 1000
# A participant's latest submission: the one started last (one not yet read in full, last).
LATEST = F("started_at").desc(nulls_last=True)


def withdrawn_from_study(*, project_id: int, worker_id: int) -> bool:
    """True when the worker's latest submission to the project's study was returned, timed out
    or rejected: the engine hands them no new item."""
    latest = (ProlificSubmission.objects.filter(project_id=project_id, worker_id=worker_id)
              .order_by(LATEST, "-pk").values_list("status", flat=True).first())
    return latest in ProlificSubmission.ENDED


def worker_submission(*, project: Project, worker_id: int) -> ProlificSubmission | None:
    """The worker's latest submission to the project's study, if any."""
    return (ProlificSubmission.objects.filter(project=project, worker_id=worker_id)
            .order_by(LATEST, "-pk").first())


def study_of(*, project: Project) -> ProlificStudy | None:
    return ProlificStudy.objects.filter(project=project).first()


@dataclass(frozen=True)
class SubmissionRow:
    submission: ProlificSubmission
    answers: int
    approved: int
    open: int
    gold_answered: int
    gold_right: int
    standing: str

    @property
    def gold_share(self) -> float | None:
        return self.gold_right / self.gold_answered if self.gold_answered else None

    @property
    def gold_interval(self) -> tuple[float, float] | None:
        return interval_of(hits=self.gold_right, n=self.gold_answered) if self.gold_answered else None


def submission_rows(*, study: ProlificStudy, status: str = "") -> list[SubmissionRow]:
    """The study's submissions (newest first, at most ROWS_LIMIT), each with its worker's answers
    in the project (real items), open assignments, gold accuracy and standing."""
    rows = study.submissions.select_related("worker", "decided_by").order_by("-started_at", "-pk")
    if status:
        rows = rows.filter(status=status)
    submissions = list(rows[:ROWS_LIMIT])
    worker_ids = {s.worker_id for s in submissions if s.worker_id}
    counted = (Assignment.objects.filter(project_id=study.project_id, worker_id__in=worker_ids)
               .values("worker_id").annotate(
                   answers=Count("pk", filter=Q(status__in=Assignment.COUNTED_STATUSES, purpose=Purpose.TASK)),
                   approved=Count("pk", filter=Q(status=Assignment.Status.APPROVED, purpose=Purpose.TASK)),
                   open=Count("pk", filter=Q(status=Assignment.Status.ASSIGNED))))
    work: dict[int, dict[str, int]] = {
        r["worker_id"]: {"answers": r["answers"], "approved": r["approved"], "open": r["open"]} for r in counted}
    standings = worker_standings(project_id=study.project_id, worker_ids=worker_ids)
    out = []
    for s in submissions:
        w: dict[str, int] = work.get(s.worker_id or 0, {})
        st = standings.get(s.worker_id or 0)
        out.append(SubmissionRow(submission=s, answers=w.get("answers", 0), approved=w.get("approved", 0),
                                 open=w.get("open", 0), gold_answered=st.gold_answered if st else 0,
                                 gold_right=st.gold_right if st else 0,
                                 standing=st.state if st else ("" if s.worker_id is None else "active")))
    return out


@dataclass(frozen=True)
class StudyState:
    study: ProlificStudy
    token_configured: bool
    webhook_configured: bool
    last_job: ProlificSyncJob | None
    by_status: dict[str, int]

    @property
    def next_poll_at(self) -> datetime | None:
        from datetime import timedelta

        polled = self.study.last_polled_at
        return polled + timedelta(seconds=self.study.poll_seconds) if polled else None


def study_state(*, study: ProlificStudy) -> StudyState:
    """What the Prolific page shows above the submissions: whether a token and a webhook secret
    are configured (never their values), the last sync job and the submissions by status."""
    counts = dict(study.submissions.values_list("status").annotate(n=Count("pk")).values_list("status", "n"))
    return StudyState(study=study, token_configured=bool(getattr(settings, "PROLIFIC_API_TOKEN", "")),
                      webhook_configured=bool(getattr(settings, "PROLIFIC_WEBHOOK_SECRET", "")),
                      last_job=study.sync_jobs.order_by("-created_at", "-pk").first(), by_status=counts)
