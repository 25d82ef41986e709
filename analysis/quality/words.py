"""A rule decision's evidence in words, as the staff pages and the API show it, e.g.
"2 of 9 gold answers right (22%, 95% interval 6–55%), below the bar of 70%: blocked"."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from annotation.models import QualityRule, RuleDecision

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


def _gold(e: Mapping[str, Any]) -> str:
    return (f"{e.get('right', '?')} of {e.get('answered', '?')} gold answers right ({_pct(e.get('accuracy'))}, "
            f"{_level(e)}interval {_range(e.get('low'), e.get('high'), _pct)}), below the bar of {_pct(e.get('threshold'))}")


def _competence(e: Mapping[str, Any]) -> str:
    return (f"MACE competence {_num(e.get('competence'))} over {e.get('answers', '?')} answers (95% interval "
            f"{_num(e.get('low'))}–{_num(e.get('high'))}, {e.get('replicates') or '?'} resamples of items, run "
            f"{e.get('run', '?')}), below the bar of {_num(e.get('threshold'))}")


def _position(e: Mapping[str, Any]) -> str:
    chose = e.get("chose_first")
    of = f"{chose} of {e.get('answers', '?')} answers" if chose is not None else f"{e.get('answers', '?')} answers"
    return (f"chose the option shown first in {of} ({_pct(e.get('share'))}, interval "
            f"{_range(e.get('low'), e.get('high'), _pct)}) where the drawn orders predict {_pct(e.get('expected'))}: "
            f"at least {_points(e.get('excess'))} more, above the bar of {_points(e.get('threshold'))} (run {e.get('run', '?')})")


def _too_fast(e: Mapping[str, Any]) -> str:
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


def evidence_words(*, kind: str, action: str, evidence: Mapping[str, Any]) -> str:
    """The evidence of a decision in one sentence, ending with what was done."""
    done = DONE.get(action, action)  # type: ignore[call-overload]
    try:
        said = SAYS[kind](evidence)
    except (KeyError, TypeError, ValueError):
        said = ", ".join(f"{k} {v}" for k, v in evidence.items() if k != "basis")
    return f"{said[:1].upper()}{said[1:]}: {done}"


def decision_words(decision: RuleDecision) -> str:
    return evidence_words(kind=decision.kind, action=decision.action, evidence=decision.evidence or {})
