"""A worker's MACE competence from the project's last finished agreement run, and the Wilson
interval of a share, for the worker page (``quality.selectors.worker_page``, which lies below
analysis and asks through its registry)."""

from __future__ import annotations

from typing import Any

from analysis.models import AnalysisRun
from annotation.models import Project
from annotation.worker_figures import Competence

KIND = "agreement"


def wilson_interval(hits: int, n: int) -> tuple[float, float]:
    from analysis.methods.intervals import wilson

    return wilson(hits, n)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def agreement_competence(project: Project, username: str) -> Competence | None:
    """The worker's row of the last finished agreement run (its ``competence`` and, when the run
    has them, ``competence_low`` and ``competence_high``); None without such a run. Only the
    run's worker table is read, not its whole result."""
    found = (AnalysisRun.objects.filter(project=project, kind=KIND, status=AnalysisRun.Status.DONE)
             .order_by("-finished_at", "-pk").values_list("pk", "result__workers").first())
    if found is None:
        return None
    run_id, workers = found
    row = next((w for w in workers or [] if isinstance(w, dict) and w.get("worker") == username), None)
    if row is None:
        return Competence(run_id=run_id, value=None)
    return Competence(run_id=run_id, value=_number(row.get("competence")), low=_number(row.get("competence_low")),
                      high=_number(row.get("competence_high")))
