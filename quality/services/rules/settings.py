"""A project's quality rules: added, changed and deleted here only, each change checked the
same way for the staff page and the API and recorded in the audit log with what it was before
and after."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from annotation.models import Project
from annotation.services.audit import audit_record
from quality.models import QualityRule
from quality.services.rules.judging import rules_per_answer_forget

Kind = QualityRule.Kind
FIELDS = ("kind", "action", "threshold", "min_answers", "share_of_median", "confidence", "enabled")
# The bar of each kind: (lowest, highest, lowest allowed itself, highest allowed itself). Too
# fast and position bias test a rate against the bar (``analysis.methods.sequential``): a bar
# of 0 too-fast answers, or no excess over 1/k, would make a single answer decide.
THRESHOLDS: dict[str, tuple[float, float, bool, bool]] = {
    Kind.GOLD_ACCURACY: (0.0, 1.0, False, True),
    Kind.COMPETENCE: (0.0, 1.0, False, True),
    Kind.TOO_FAST: (0.0, 1.0, False, False),
    Kind.POSITION_BIAS: (0.0, 1.0, False, False),
    Kind.AUTOMATION: (0.0, 1.0, True, True),
}
MAX_MIN_ANSWERS = 100_000


class RuleInvalid(ValueError):
    """Rule settings that are refused: ``errors`` maps each offending field to what is wrong."""

    def __init__(self, errors: Mapping[str, str]):
        super().__init__("; ".join(f"{name}: {message}" for name, message in errors.items()))
        self.errors = dict(errors)


def _number(value: Any, name: str, errors: dict[str, str], *, integer: bool = False) -> Any:
    if isinstance(value, bool) or value is None or value == "":
        errors[name] = "is required" if value in (None, "") else "must be a number"
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        errors[name] = f"must be a number, not {str(value)[:40]!r}"
        return None
    if integer:
        if number != int(number):
            errors[name] = f"must be a whole number, not {value}"
            return None
        return int(number)
    if number != number or number in (float("inf"), float("-inf")):
        errors[name] = "must be a finite number"
        return None
    return number


def rule_clean(*, data: Mapping[str, Any], rule: QualityRule | None = None) -> dict[str, Any]:
    """The settings ``data`` gives (over those of ``rule`` when it changes one), checked: raises
    RuleInvalid naming each field out of range. Unknown fields are refused too."""
    errors: dict[str, str] = {}
    unknown = sorted(set(data) - set(FIELDS))
    for name in unknown:
        errors[name] = f"is not a rule setting; the settings are {', '.join(FIELDS)}"
    base = {name: getattr(rule, name) for name in FIELDS} if rule is not None else {
        "action": QualityRule.Action.REVIEW, "min_answers": 5, "share_of_median": 0.25, "confidence": 0.95,
        "enabled": True}
    merged = {**base, **{k: v for k, v in data.items() if k in FIELDS}}
    clean: dict[str, Any] = {}
    kind = merged.get("kind")
    if rule is not None and "kind" in data and data["kind"] != rule.kind:
        errors["kind"] = "cannot change: delete the rule and add one of the other kind"
    elif kind not in Kind.values:
        errors["kind"] = f"must be one of {', '.join(Kind.values)}, not {str(kind)[:40]!r}"
    clean["kind"] = kind
    if merged.get("action") not in QualityRule.Action.values:
        errors["action"] = f"must be one of {', '.join(QualityRule.Action.values)}, not {str(merged.get('action'))[:40]!r}"
    clean["action"] = merged.get("action")
    threshold = _number(merged.get("threshold", 0.0 if kind == Kind.AUTOMATION else None), "threshold", errors)
    if threshold is not None and kind in THRESHOLDS:
        low, high, low_in, high_in = THRESHOLDS[kind]
        if not ((threshold >= low if low_in else threshold > low) and (threshold <= high if high_in else threshold < high)):
            errors["threshold"] = (f"must be {'from' if low_in else 'above'} {low:g} {'to' if high_in else 'and below'} "
                                   f"{high:g} for a rule of kind {kind}, not {threshold:g}")
    clean["threshold"] = threshold
    min_answers = _number(merged.get("min_answers"), "min_answers", errors, integer=True)
    if min_answers is not None and not 1 <= min_answers <= MAX_MIN_ANSWERS:
        errors["min_answers"] = f"must be from 1 to {MAX_MIN_ANSWERS:,}, not {min_answers}"
    clean["min_answers"] = min_answers
    share = _number(merged.get("share_of_median"), "share_of_median", errors)
    if share is not None and not 0 < share <= 1:
        errors["share_of_median"] = f"must be above 0 and at most 1, not {share:g}"
    clean["share_of_median"] = share
    confidence = _number(merged.get("confidence"), "confidence", errors)
    if confidence is not None and not 0.5 < confidence < 1:
        errors["confidence"] = f"must be above 0.5 and below 1 (e.g. 0.95), not {confidence:g}"
    clean["confidence"] = confidence
    enabled = merged.get("enabled")
    if not isinstance(enabled, bool):
        errors["enabled"] = "must be true or false"
    clean["enabled"] = enabled
    if errors:
        raise RuleInvalid(errors)
    return clean


def rule_settings(*, rule: QualityRule) -> dict[str, Any]:
    return {name: getattr(rule, name) for name in FIELDS}


def rule_add(*, project: Project, actor: User | None, data: Mapping[str, Any]) -> QualityRule:
    clean = rule_clean(data=data)
    with transaction.atomic():
        rule = QualityRule.objects.create(project=project, created_by=actor if actor and actor.is_authenticated else None,
                                          **clean)
        audit_record(actor=actor, action="rule_add", project=project, target=f"rule {rule.pk}",
                     details={"before": None, "after": rule_settings(rule=rule)})
        _forget(project.pk)
    return rule


def rule_change(*, rule: QualityRule, actor: User | None, data: Mapping[str, Any]) -> QualityRule:
    clean = rule_clean(data=data, rule=rule)
    with transaction.atomic():
        rule = QualityRule.objects.select_for_update().get(pk=rule.pk)
        before = rule_settings(rule=rule)
        for name, value in clean.items():
            setattr(rule, name, value)
        rule.save()
        after = rule_settings(rule=rule)
        if after != before:
            audit_record(actor=actor, action="rule_change", project=rule.project, target=f"rule {rule.pk}",
                         details={"before": before, "after": after})
            _forget(rule.project_id)
    return rule


def rule_delete(*, rule: QualityRule, actor: User | None) -> None:
    """Delete a rule; its decisions stay (with their evidence), no longer linked to it."""
    with transaction.atomic():
        before = rule_settings(rule=rule)
        project, pk = rule.project, rule.pk
        rule.delete()
        audit_record(actor=actor, action="rule_delete", project=project, target=f"rule {pk}",
                     details={"before": before, "after": None})
        _forget(project.pk)


def _forget(project_id: int) -> None:
    """The submits' cached rules of the project are dropped now and once the change commits (a
    submit in between could cache the rules as they were)."""
    rules_per_answer_forget(project_id=project_id)
    transaction.on_commit(lambda: rules_per_answer_forget(project_id=project_id))
