"""Sequential tests of a worker's rate of bad answers, judged after every answer: the one place
where the quality rules' statistics live (gold accuracy, too fast, position bias).

Each rule watches one kind of answer that speaks against a worker (a wrong gold answer, an
answer faster than a share of the median time, the option shown first chosen) and tests

    H0: the worker's rate of such answers is ``p0`` (exactly at the rule's bar)
    H1: it is ``p1`` (worse than the bar by the rule's margin)

with Wald's sequential probability ratio test, open-ended on the side of H0: the log-likelihood
ratio ``llr`` of H1 against H0 is summed over the answers, and the rule decides as soon as
``llr >= log(1 / alpha)``. Under H0 the likelihood ratio is a non-negative martingale with mean
1, so by Ville's inequality the chance that it *ever* reaches ``1 / alpha`` is at most
``alpha``: the false-decision rate over the whole study, however long and however often it is
looked at, is at most ``alpha`` for a worker exactly at the bar, and smaller for a better one
(the ratio drifts down the faster the further the worker is from the bar). A check after every
answer costs nothing in error: it is the design.

The answer-by-answer steps are additive, so a rule keeps only running counts (``hits``,
``answers``) or, where each answer has its own null rate (position bias over items with
different numbers of options), the running ``llr`` itself.

References: A. Wald, *Sequential Analysis* (1947), ch. 5 (the binomial SPRT); J. Ville, *Étude
critique de la notion de collectif* (1939), the maximal inequality for non-negative
supermartingales; A. Ramdas et al., "Game-theoretic statistics and safe anytime-valid
inference", Statistical Science 38 (2023), for the always-valid reading.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "GOLD_MARGIN",
    "TOO_FAST_SHARE_OF_GAP",
    "SequentialTest",
    "Verdict",
    "alpha_of",
    "gold_accuracy_test",
    "gold_test",
    "position_bias_step",
    "position_bias_test",
    "position_test_of",
    "too_fast_test",
    "too_fast_test_of",
    "verdict",
]

# Gold accuracy: the alternative lies this far below the bar (an accuracy of 0.7 is tested
# against 0.55). Smaller margins need more gold answers to decide about a clearly bad worker;
# larger ones let a worker just below the bar go on longer. 15 points decides about a random
# clicker on a pairwise study in a few dozen gold answers (bench/quality/rules_simulation.py).
GOLD_MARGIN = 0.15
# Too fast: the alternative share of too-fast answers is this fraction of the way from the bar
# to "every answer too fast" (a bar of 0.1 is tested against 0.55): a speeder answers nearly
# everything fast, an honest worker now and then.
TOO_FAST_SHARE_OF_GAP = 0.5
# A rate of exactly 0 or 1 under H1 would make one answer infinite evidence; kept inside.
_EDGE = 1e-6


@dataclass(frozen=True)
class SequentialTest:
    """An open-ended SPRT of a Bernoulli rate: H0 ``p0`` against H1 ``p1`` (> ``p0``), deciding
    for H1 once the log-likelihood ratio reaches ``log(1 / alpha)``."""

    p0: float
    p1: float
    alpha: float

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must lie between 0 and 1, not {self.alpha!r}")
        if not 0 <= self.p0 < self.p1 <= 1:
            raise ValueError(f"the rates must satisfy 0 <= p0 < p1 <= 1, not p0={self.p0!r}, p1={self.p1!r}")

    @property
    def bound(self) -> float:
        """The log-likelihood ratio at which the test decides."""
        return math.log(1 / self.alpha)

    @property
    def hit_step(self) -> float:
        """What one answer that speaks against the worker adds to the ratio (infinite when H0
        says such answers never happen)."""
        return math.inf if self.p0 == 0 else math.log(self.p1 / self.p0)

    @property
    def miss_step(self) -> float:
        """What one other answer adds (negative)."""
        return math.log((1 - min(self.p1, 1 - _EDGE)) / (1 - self.p0))

    def llr(self, *, hits: int, answers: int) -> float:
        """The log-likelihood ratio after ``answers`` answers of which ``hits`` spoke against."""
        if not 0 <= hits <= answers:
            raise ValueError(f"hits must lie between 0 and answers, not {hits} of {answers}")
        misses = (answers - hits) * self.miss_step
        return misses + (hits * self.hit_step if hits else 0.0)


@dataclass(frozen=True)
class Verdict:
    """A rule's test after the answers counted so far."""

    decided: bool  # the ratio reached the bound after at least ``min_answers`` answers
    llr: float
    bound: float
    answers: int
    hits: int
    p0: float
    p1: float
    alpha: float
    min_answers: int

    @property
    def likelihood_ratio(self) -> float:
        """How many times likelier the answers are under H1 than at the bar (capped for display)."""
        return math.exp(min(self.llr, 700.0))


def verdict(test: SequentialTest, *, llr: float, hits: int, answers: int, min_answers: int) -> Verdict:
    """The verdict of ``test`` given its running ratio: decided once the ratio reaches the bound
    and at least ``min_answers`` answers were counted (fewer looks never raise the error)."""
    return Verdict(decided=answers >= min_answers and llr >= test.bound, llr=llr, bound=test.bound, answers=answers,
                   hits=hits, p0=test.p0, p1=test.p1, alpha=test.alpha, min_answers=min_answers)


def alpha_of(confidence: float) -> float:
    """A rule's ``confidence`` as the test's error over the whole study: 0.95 → 0.05."""
    if not 0.5 < confidence < 1:
        raise ValueError(f"confidence must lie above 0.5 and below 1, not {confidence!r}")
    return 1 - confidence


def gold_test(*, threshold: float, confidence: float, margin: float = GOLD_MARGIN) -> SequentialTest:
    """Gold accuracy with bar ``threshold`` as a test of the rate of wrong gold answers: H0 at
    the bar (``1 - threshold``), H1 ``margin`` worse (never past every answer wrong)."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must lie above 0 and at most 1, not {threshold!r}")
    below = max(threshold - margin, threshold / 2)
    return SequentialTest(p0=1 - threshold, p1=1 - below, alpha=alpha_of(confidence))


def gold_accuracy_test(*, right: int, answered: int, threshold: float, confidence: float,
                       min_answers: int) -> Verdict:
    """Whether a worker with ``right`` of ``answered`` gold answers right is below the bar."""
    test = gold_test(threshold=threshold, confidence=confidence)
    wrong = answered - right
    return verdict(test, llr=test.llr(hits=wrong, answers=answered), hits=wrong, answers=answered,
                   min_answers=min_answers)


def too_fast_test_of(*, threshold: float, confidence: float) -> SequentialTest:
    """Too fast with bar ``threshold`` (the share of too-fast answers tolerated, above 0): H1
    halfway (``TOO_FAST_SHARE_OF_GAP``) from the bar to every answer too fast."""
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must lie above 0 and below 1, not {threshold!r}")
    return SequentialTest(p0=threshold, p1=threshold + TOO_FAST_SHARE_OF_GAP * (1 - threshold),
                          alpha=alpha_of(confidence))


def too_fast_test(*, fast: int, answers: int, threshold: float, confidence: float, min_answers: int) -> Verdict:
    """Whether a worker with ``fast`` of ``answers`` answers too fast does so more than the bar."""
    test = too_fast_test_of(threshold=threshold, confidence=confidence)
    return verdict(test, llr=test.llr(hits=fast, answers=answers), hits=fast, answers=answers,
                   min_answers=min_answers)


def position_test_of(*, options: int, excess: float, confidence: float) -> SequentialTest:
    """Position bias on an answer among ``options`` options shown in a drawn order: an unbiased
    worker chooses the one shown first with probability exactly ``1 / options`` (the order is
    drawn uniformly and independently of the content, so whatever they choose by content was
    first by chance); H1 is that plus ``excess`` (the rule's threshold)."""
    if options < 2:
        raise ValueError(f"a position needs at least 2 options, not {options}")
    if not 0 < excess < 1:
        raise ValueError(f"excess must lie above 0 and below 1, not {excess!r}")
    p0 = 1 / options
    return SequentialTest(p0=p0, p1=min(p0 + excess, 1 - _EDGE), alpha=alpha_of(confidence))


def position_bias_step(*, options: int, chose_first: bool, excess: float, confidence: float) -> float:
    """What one answer that chose exactly one of ``options`` options (shown in a drawn order)
    adds to the position-bias ratio. Ties and answers of several options are not counted: the
    null rate holds for one choice among the options shown."""
    test = position_test_of(options=options, excess=excess, confidence=confidence)
    return test.hit_step if chose_first else test.miss_step


def position_bias_test(*, llr: float, chose_first: int, answers: int, excess: float, confidence: float,
                       min_answers: int, options: int = 2) -> Verdict:
    """The position-bias verdict from the running ratio (``position_bias_step`` summed);
    ``options`` only states the null rate shown with it (the ratio already holds each answer's)."""
    test = position_test_of(options=options, excess=excess, confidence=confidence)
    return verdict(test, llr=llr, hits=chose_first, answers=answers, min_answers=min_answers)
