"""What the apps above the crowd engine add to the worker page (``annotation.selectors.worker_page``):
a worker's MACE competence from an analysis run, and the interval of a share. The engine lies
below analysis and never imports it: analysis registers both in its ``AppConfig.ready``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from annotation.models import Project


@dataclass(frozen=True)
class Competence:
    """A worker's MACE competence from an agreement run, with its interval when the run has one."""

    run_id: int
    value: float | None
    low: float | None = None
    high: float | None = None


# Analysis lies above the crowd engine and registers where competence comes from and how a
# share's interval is computed (``analysis.apps``): the engine never imports it.
CompetenceSource = Callable[[Project, str], Competence | None]
IntervalOf = Callable[[int, int], tuple[float, float]]
_COMPETENCE: list[CompetenceSource] = []
_INTERVAL: list[IntervalOf] = []


def competence_sources() -> list[CompetenceSource]:
    return list(_COMPETENCE)


def interval_of(*, hits: int, n: int) -> tuple[float, float] | None:
    """The registered 95% interval of ``hits`` of ``n``; None when no app registered one."""
    return _INTERVAL[0](hits, n) if _INTERVAL else None


def competence_source_register(source: CompetenceSource) -> CompetenceSource:
    if source not in _COMPETENCE:
        _COMPETENCE.append(source)
    return source


def interval_register(interval: IntervalOf) -> IntervalOf:
    """The 95% interval of ``hits`` of ``n`` (analysis registers the Wilson score interval)."""
    _INTERVAL[:] = [interval]
    return interval
