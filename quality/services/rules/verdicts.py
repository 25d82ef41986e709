"""One judgement per kind of rule: a rule's settings mapped to its sequential test
(``analysis.methods.sequential``), and the evidence a decision records when the test decides.
Every place that judges a rule (each submit, an analysis run, "Check the rules now") calls
these functions and no other statistic.

How a rule's settings map to its test:

- ``confidence`` is one minus the test's error over the whole study: at 0.95, a worker exactly
  at the bar is decided about in at most 5% of studies, however many answers they give.
- ``threshold`` is the bar, H0 of the test: an accuracy (gold), the share of too-fast answers
  tolerated (too fast), the excess over ``1/k`` of choosing the option shown first that H1
  states (position bias: H0 is exactly ``1/k``). The margin of H1 is the module's
  (``GOLD_MARGIN``, ``TOO_FAST_SHARE_OF_GAP``).
- ``min_answers``: the test decides no sooner (fewer looks only lower its error).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from analysis.methods.sequential import (
    Verdict,
    gold_accuracy_test,
    position_bias_step,
    position_bias_test,
    too_fast_test,
)
from annotation.task_types.base import TaskType
from quality.models import QualityRule

# Why the position-bias rule says nothing about a project that shows options in import order.
IMPORT_ORDER = ("cannot judge: the project shows every item's options in import order, so choosing the first-shown "
                "option cannot be told apart from choosing by content; draw the order per worker to judge it")


class RuleSettings(Protocol):
    """What judging reads of a rule: a ``QualityRule``, or the settings a submit reads of one
    from the cache (``judging.PerAnswerRule``) without building a model row."""

    @property
    def kind(self) -> str: ...
    @property
    def threshold(self) -> float: ...
    @property
    def min_answers(self) -> int: ...
    @property
    def share_of_median(self) -> float: ...
    @property
    def confidence(self) -> float: ...


def _test_figures(v: Verdict) -> dict[str, Any]:
    # An answer the bar rules out (a wrong one against a bar of 1) makes the ratio infinite:
    # stored as None, since JSON has no infinity.
    return {"test": "sprt", "llr": round(v.llr, 4) if math.isfinite(v.llr) else None, "bound": round(v.bound, 4), "alpha": round(v.alpha, 6),
            "p0": round(v.p0, 6), "p1": round(v.p1, 6), "min_answers": v.min_answers}


def gold_accuracy_evidence(*, rule: QualityRule, right: int, answered: int) -> dict[str, Any] | None:
    """The evidence on which ``rule`` finds a worker below its bar, or None when its test has
    not decided (too few gold answers, or not enough evidence yet)."""
    if answered < rule.min_answers:
        return None
    v = gold_accuracy_test(right=right, answered=answered, threshold=rule.threshold, confidence=rule.confidence,
                           min_answers=rule.min_answers)
    if not v.decided:
        return None
    return {"right": right, "answered": answered, "accuracy": round(right / answered, 4),
            "threshold": rule.threshold, "confidence": rule.confidence, "alternative": round(1 - v.p1, 6),
            **_test_figures(v),
            # What the evidence rests on, as the rule check of a whole project records it: a rule
            # never decides twice on the same basis (``quality.rules.findings``).
            "basis": f"{answered} gold answers"}


def too_fast_evidence(*, rule: RuleSettings, fast: int, answers: int, median: float, cutoff: float,
                      basis: str | None = None) -> dict[str, Any] | None:
    """The evidence on which a too-fast rule decides about a worker with ``fast`` of ``answers``
    answers to real items faster than ``cutoff`` seconds (the rule's share of ``median``)."""
    if answers < rule.min_answers:
        return None
    v = too_fast_test(fast=fast, answers=answers, threshold=rule.threshold, confidence=rule.confidence,
                      min_answers=rule.min_answers)
    if not v.decided:
        return None
    return {"median": round(median, 3), "cutoff": round(cutoff, 3), "share_of_median": rule.share_of_median,
            "too_fast": fast, "answers": answers, "share": round(fast / answers, 6), "threshold": rule.threshold,
            "confidence": rule.confidence, "alternative": round(v.p1, 6), **_test_figures(v),
            "basis": basis or f"{answers} answers"}


def position_bias_observation(*, task: TaskType, shown: Mapping[str, Sequence[Any]] | None,
                              answer: Mapping[str, Any]) -> tuple[int, bool] | None:
    """What one answer tells the position-bias test: (options shown, whether it chose the one
    shown first); None when it tells nothing: no order, or not exactly one of the options shown
    chosen (a tie, "None", several). The options chosen are the task type's
    (``TaskType.chosen_options``), as the worker page's first-shown figure reads them."""
    if not task.shown_order_parts or not shown:
        return None
    order = [str(option) for option in shown.get(task.shown_order_parts[0]) or ()]
    if len(order) < 2:
        return None
    chosen = task.chosen_options(answer, options=order)
    if len(chosen) != 1:
        return None
    return len(order), chosen[0] == order[0]


def position_bias_increment(*, rule: RuleSettings, options: int, chose_first: bool) -> float:
    return position_bias_step(options=options, chose_first=chose_first, excess=rule.threshold,
                              confidence=rule.confidence)


def position_bias_evidence(*, rule: RuleSettings, llr: float, chose_first: int, answers: int,
                           options: int = 2, basis: str | None = None) -> dict[str, Any] | None:
    """The evidence on which a position-bias rule decides, from its running ratio."""
    if answers < rule.min_answers:
        return None
    v = position_bias_test(llr=llr, chose_first=chose_first, answers=answers, excess=rule.threshold,
                           confidence=rule.confidence, min_answers=rule.min_answers, options=options)
    if not v.decided:
        return None
    return {"chose_first": chose_first, "answers": answers, "share": round(chose_first / answers, 6),
            "expected": round(v.p0, 6), "options": options, "threshold": rule.threshold,
            "confidence": rule.confidence, "alternative": round(v.p1, 6), **_test_figures(v),
            "basis": basis or f"{answers} answers"}


def automation_evidence(*, rule: RuleSettings, automated: int, answers: int) -> dict[str, Any] | None:
    """An automated browser is a signal the browser gives itself, not a rate: the rule decides
    once it has sent ``min_answers`` answers."""
    if automated < rule.min_answers:
        return None
    return {"automated": automated, "answers": answers, "min_answers": rule.min_answers,
            "basis": f"{automated} automated answers"}


def state_evidence(*, rule: RuleSettings, answers: int, hits: int, llr: float, median: float | None = None,
                   cutoff: float | None = None) -> dict[str, Any] | None:
    """The evidence a per-answer rule's running state (``RuleState``: its answers, hits and
    ratio) holds, or None (no decision)."""
    if rule.kind == QualityRule.Kind.AUTOMATION:
        return automation_evidence(rule=rule, automated=hits, answers=answers)
    if answers < rule.min_answers:
        # No test decides before its least number of answers: the common case, kept cheap.
        return None
    basis = f"{answers} answers judged as they arrived"
    if rule.kind == QualityRule.Kind.TOO_FAST:
        if median is None or cutoff is None:
            return None
        return too_fast_evidence(rule=rule, fast=hits, answers=answers, median=median, cutoff=cutoff, basis=basis)
    if rule.kind == QualityRule.Kind.POSITION_BIAS:
        return position_bias_evidence(rule=rule, llr=llr, chose_first=hits, answers=answers, basis=basis)
    return None
