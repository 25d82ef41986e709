"""The reason review's verdict on a worker: reject all of their counted work in the project and
queue the gold pipeline again without it (with the latest finished run's parameters). One entry
point for the gold page and the API."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from analysis.models import AnalysisRun
from analysis.selectors import latest_done
from analysis.services import analysis_run_create
from annotation.models import Project
from annotation.services import worker_work_reject
from runtime.unavailable import ServiceUnavailable

KIND = "pairwise_gold"
NOTE = "rejected in the reason review"


@dataclass(frozen=True)
class GoldRejection:
    rejected: int
    # The recompute of the gold data; None when there was no counted work to reject.
    run: AnalysisRun | None
    # False when the job queue could not be reached: the rejection is stored, the run is failed
    # with the reason and can be restarted.
    queued: bool


def gold_worker_reject(*, project: Project, worker: User, reviewer: User) -> GoldRejection:
    """Reject ``worker``'s counted work in ``project`` and recompute the gold data; nothing to do
    (and no run) when they have none."""
    done = latest_done(project=project, kind=KIND)
    try:
        with transaction.atomic():
            n = worker_work_reject(project=project, worker=worker, note=NOTE, reviewer=reviewer)
            if not n:
                return GoldRejection(rejected=0, run=None, queued=False)
            run = analysis_run_create(project=project, kind=KIND, params=done.params if done else {}, user=reviewer)
    except ServiceUnavailable:
        # Raised as the transaction commits: the rejection and the (failed) run are stored.
        return GoldRejection(rejected=n, run=run, queued=False)
    return GoldRejection(rejected=n, run=run, queued=True)
