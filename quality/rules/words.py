"""A rule decision's evidence in words, as the staff pages and the API show it, e.g.
"12 of 20 gold answers wrong (accuracy 40%): 35 times likelier for a worker at 55% than at the
bar of 70%, past the 20 times the rule needs (a worker at the bar: at most 5% of studies):
blocked". Decisions recorded before the rules' sequential tests (an interval against the bar)
keep their own wording."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from quality.models import QualityRule, RuleDecision

Kind = QualityRule.Kind
DONE = {QualityRule.Action.BLOCK: "blocked", QualityRule.Action.REVIEW: "sent to review"}


def _pct(value: Any) -> str:
    return "?" if value is None else f"{100 * float(value):.0f}%"


def _points(value: Any) -> str:
    return "?" if value is None else f"{100 * float(value):.0f} points"


def _num(value: Any, digits: int = 2) -> str:
    return "?" if value is None else f"{float(value):.{digits}f}"


def _level(e: Mapping[str, Any]) -> str:
    confidence = e.get("confidence")
    return "" if confidence is None else f"{100 * float(confidence):g}% "


def _range(low: Any, high: Any, show: Callable[[Any], str]) -> str:
    return f"{show(low).rstrip('%')}–{show(high)}"


def _times(llr: Any) -> str:
    ratio = math.exp(min(float(llr), 50.0))
    return "more than 10,000" if ratio > 10_000 else f"{ratio:,.0f}"


def _test(e: Mapping[str, Any], *, alternative: str, bar: str) -> str:
    """The sequential test's verdict: how much likelier the answers are under the alternative
    than at the bar, against what the rule needs, and the error that bound keeps to."""
    alpha = float(e["alpha"])
    # None: an answer the bar rules out (a wrong one against a bar of 100%).
    likelier = "infinitely likelier" if e["llr"] is None else f"{_times(e['llr'])} times likelier"
    return (f"{likelier} for a worker {alternative} than {bar}, past the "
            f"{_times(e['bound'])} times the rule needs (a worker at the bar: at most {100 * alpha:g}% of studies)")


def _gold(e: Mapping[str, Any]) -> str:
    if e.get("test") == "sprt":
        wrong = int(e["answered"]) - int(e["right"])
        return (f"{wrong} of {e['answered']} gold answers wrong (accuracy {_pct(e.get('accuracy'))}): "
                + _test(e, alternative=f"at {_pct(e.get('alternative'))}", bar=f"at the bar of {_pct(e.get('threshold'))}"))
    return (f"{e.get('right', '?')} of {e.get('answered', '?')} gold answers right ({_pct(e.get('accuracy'))}, "
            f"{_level(e)}interval {_range(e.get('low'), e.get('high'), _pct)}), below the bar of {_pct(e.get('threshold'))}")


def _competence(e: Mapping[str, Any]) -> str:
    return (f"MACE competence {_num(e.get('competence'))} over {e.get('answers', '?')} answers (95% interval "
            f"{_num(e.get('low'))}–{_num(e.get('high'))}, {e.get('replicates') or '?'} resamples of items, run "
            f"{e.get('run', '?')}), below the bar of {_num(e.get('threshold'))}")


def _position(e: Mapping[str, Any]) -> str:
    if e.get("test") == "sprt":
        return (f"chose the option shown first in {e['chose_first']} of {e['answers']} answers that chose one "
                f"({_pct(e.get('share'))}) where an unbiased worker does so in {_pct(e.get('expected'))} (orders drawn "
                f"per worker): " + _test(e, alternative=f"choosing it in {_pct(e.get('alternative'))}",
                                         bar=f"at {_pct(e.get('expected'))} (the bar allows {_points(e.get('threshold'))} more)"))
    chose = e.get("chose_first")
    of = f"{chose} of {e.get('answers', '?')} answers" if chose is not None else f"{e.get('answers', '?')} answers"
    return (f"chose the option shown first in {of} ({_pct(e.get('share'))}, interval "
            f"{_range(e.get('low'), e.get('high'), _pct)}) where the drawn orders predict {_pct(e.get('expected'))}: "
            f"at least {_points(e.get('excess'))} more, above the bar of {_points(e.get('threshold'))} (run {e.get('run', '?')})")


def _too_fast(e: Mapping[str, Any]) -> str:
    if e.get("test") == "sprt":
        return (f"{e['too_fast']} of {e['answers']} answers faster than {_num(e.get('cutoff'), 1)} s "
                f"({_pct(e.get('share_of_median'))} of the project's median of {_num(e.get('median'), 1)} s, server "
                f"time): {_pct(e.get('share'))}; " + _test(e, alternative=f"with {_pct(e.get('alternative'))} such answers",
                                                           bar=f"at the bar of {_pct(e.get('threshold'))}"))
    return (f"{e.get('too_fast', '?')} of {e.get('answers', '?')} answers faster than {_num(e.get('cutoff'), 1)} s "
            f"({_pct(e.get('share_of_median'))} of the project's median of {_num(e.get('median'), 1)} s): "
            f"{_pct(e.get('share'))}, {_level(e)}interval {_range(e.get('low'), e.get('high'), _pct)}, "
            f"above the bar of {_pct(e.get('threshold'))}")


def _automation(e: Mapping[str, Any]) -> str:
    return (f"{e.get('automated', '?')} of {e.get('answers', '?')} answers sent from an automated browser "
            f"(navigator.webdriver), at least the {e.get('min_answers', '?')} the rule allows")


SAYS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    Kind.GOLD_ACCURACY: _gold, Kind.COMPETENCE: _competence, Kind.POSITION_BIAS: _position,
    Kind.TOO_FAST: _too_fast, Kind.AUTOMATION: _automation,
}


def finding_words(*, kind: str, evidence: Mapping[str, Any]) -> str:
    """A rule's evidence about a worker in one sentence."""
    try:
        said = SAYS[kind](evidence)
    except (KeyError, TypeError, ValueError):
        said = ", ".join(f"{k} {v}" for k, v in evidence.items() if k != "basis")
    return f"{said[:1].upper()}{said[1:]}"


def evidence_words(*, kind: str, action: str, evidence: Mapping[str, Any]) -> str:
    """The evidence of a decision in one sentence, ending with what was done."""
    done = DONE.get(action, action)  # type: ignore[call-overload]
    return f"{finding_words(kind=kind, evidence=evidence)}: {done}"


def decision_words(decision: RuleDecision) -> str:
    return evidence_words(kind=decision.kind, action=decision.action, evidence=decision.evidence or {})
