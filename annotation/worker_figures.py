"""What the apps above the crowd engine add to the worker page (``quality.selectors.worker_page``):
a worker's MACE competence from an analysis run, the interval of a share, a rule decision in the
rules page's words and the picture of a worker's position bias. The engine lies below analysis
and never imports it: analysis registers each in its ``AppConfig.ready``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from annotation.models import Project


@dataclass(frozen=True)
class Competence:
    """A worker's MACE competence from an agreement run, with its interval when the run has one."""

    run_id: int
    value: float | None
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class FirstShown:
    """How often a worker chose the option shown first, over their counted task answers shown
    in a drawn order that chose some but not every option (a tie or "None" picks no place):
    ``hits`` of ``n``. With no position bias an answer that chose m of k shown options has the
    first-shown one among them with chance m/k (1/k for one choice: a half for a pair), whatever
    the items say, since the order was drawn; ``expected`` is the mean of those chances. ``why``
    says why there is nothing to judge (import order, no such answer)."""

    n: int
    hits: int
    expected: float | None
    interval: tuple[float, float] | None
    first_shown: str  # the type's words for the first-shown option
    why: str = ""

    @property
    def share(self) -> float | None:
        return self.hits / self.n if self.n else None

    @property
    def words(self) -> str:
        """The figure in one sentence: what the page says beside it, for those who cannot see it."""
        if not self.n or self.share is None or self.expected is None:
            return f"Nothing to judge: {self.why or 'no answers'}."
        said = (f"Chose {self.first_shown} in {self.hits} of {self.n} answers ({100 * self.share:.0f}%"
                + (f", 95% interval {100 * self.interval[0]:.0f}–{100 * self.interval[1]:.0f}%" if self.interval else "")
                + f"); with no position bias the drawn orders predict {100 * self.expected:.0f}%")
        if self.interval is None:
            return f"{said}."
        low, high = self.interval
        where = ("the interval includes it" if low <= self.expected <= high
                 else "the interval lies above it" if low > self.expected else "the interval lies below it")
        return f"{said}: {where}."


# Analysis lies above the crowd engine and registers where competence comes from and how a
# share's interval is computed (``analysis.apps``): the engine never imports it.
CompetenceSource = Callable[[Project, str], Competence | None]
IntervalOf = Callable[[int, int], tuple[float, float]]
_COMPETENCE: list[CompetenceSource] = []
_INTERVAL: list[IntervalOf] = []
# A rule decision (quality control's ``RuleDecision``) in the rules page's words.
DecisionWords = Callable[[Any], str]
FirstShownFigure = Callable[[FirstShown], str]
_DECISION_WORDS: list[DecisionWords] = []
_FIRST_SHOWN_FIGURE: list[FirstShownFigure] = []


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


def decision_words(decision: Any) -> str | None:
    """A rule decision's evidence in the words of the rules page; None when no app registered
    them (the page then shows the decision's kind and action alone)."""
    return _DECISION_WORDS[0](decision) if _DECISION_WORDS else None


def decision_words_register(words: DecisionWords) -> DecisionWords:
    _DECISION_WORDS[:] = [words]
    return words


def first_shown_figure(share: FirstShown) -> str | None:
    """The SVG of a worker's first-shown share against the drawn orders' expectation; None when
    no app registered a drawing."""
    return _FIRST_SHOWN_FIGURE[0](share) if _FIRST_SHOWN_FIGURE else None


def first_shown_figure_register(figure: FirstShownFigure) -> FirstShownFigure:
    _FIRST_SHOWN_FIGURE[:] = [figure]
    return figure
