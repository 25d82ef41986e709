"""A project's quality rules are added, changed and deleted through one checked path that
names every field out of range and records each change with before and after."""

from __future__ import annotations

import pytest

from annotation.models import AuditEntry
from quality.models import QualityRule
from quality.services.rules.settings import (
    RuleInvalid,
    rule_add,
    rule_change,
    rule_clean,
    rule_delete,
)
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_add_change_delete_are_audited_with_before_and_after():
    project, admin = ProjectFactory(), UserFactory(role="admin")
    rule = rule_add(project=project, actor=admin, data={"kind": "gold_accuracy", "threshold": 0.7, "min_answers": 8,
                                                        "action": "block"})
    assert (rule.kind, rule.threshold, rule.min_answers, rule.action, rule.enabled) == ("gold_accuracy", 0.7, 8, "block", True)
    assert rule.created_by == admin
    rule_change(rule=rule, actor=admin, data={"threshold": 0.6, "enabled": False})
    rule.refresh_from_db()
    assert rule.threshold == 0.6 and not rule.enabled
    rule_change(rule=rule, actor=admin, data={"threshold": 0.6})  # no change: no entry
    rule_delete(rule=rule, actor=admin)
    assert not QualityRule.objects.exists()
    entries = list(AuditEntry.objects.filter(project=project).order_by("pk"))
    assert [e.action for e in entries] == ["rule_add", "rule_change", "rule_delete"]
    assert all(e.actor == admin for e in entries)
    assert entries[0].details["before"] is None and entries[0].details["after"]["threshold"] == 0.7
    assert entries[1].details["before"]["threshold"] == 0.7 and entries[1].details["after"]["threshold"] == 0.6
    assert entries[1].details["before"]["enabled"] is True and entries[1].details["after"]["enabled"] is False
    assert entries[2].details["after"] is None and entries[2].details["before"]["min_answers"] == 8


@pytest.mark.parametrize(("data", "field", "words"), [
    ({"kind": "gold_accuracy", "threshold": 1.5}, "threshold", "above 0 to 1"),
    ({"kind": "gold_accuracy", "threshold": 0}, "threshold", "above 0"),
    ({"kind": "too_fast", "threshold": 1}, "threshold", "below 1"),
    ({"kind": "position_bias", "threshold": -0.1}, "threshold", "above 0"),
    ({"kind": "too_fast", "threshold": 0}, "threshold", "above 0 and below 1"),
    ({"kind": "competence", "threshold": "high"}, "threshold", "must be a number"),
    ({"kind": "competence"}, "threshold", "is required"),
    ({"kind": "competence", "threshold": 0.5, "min_answers": 0}, "min_answers", "from 1"),
    ({"kind": "competence", "threshold": 0.5, "min_answers": 2.5}, "min_answers", "whole number"),
    ({"kind": "too_fast", "threshold": 0.2, "share_of_median": 0}, "share_of_median", "above 0"),
    ({"kind": "too_fast", "threshold": 0.2, "confidence": 0.4}, "confidence", "above 0.5"),
    ({"kind": "too_fast", "threshold": 0.2, "confidence": 1}, "confidence", "below 1"),
    ({"kind": "sloppy", "threshold": 0.2}, "kind", "must be one of gold_accuracy"),
    ({"kind": "too_fast", "threshold": 0.2, "action": "fire"}, "action", "must be one of block, review"),
    ({"kind": "too_fast", "threshold": 0.2, "enabled": "yes"}, "enabled", "true or false"),
    ({"kind": "too_fast", "threshold": 0.2, "colour": "red"}, "colour", "not a rule setting"),
])
def test_out_of_range_settings_are_refused_naming_the_field(data, field, words):
    project = ProjectFactory()
    with pytest.raises(RuleInvalid) as refused:
        rule_add(project=project, actor=None, data=data)
    assert field in refused.value.errors and words in refused.value.errors[field]
    assert not QualityRule.objects.exists() and not AuditEntry.objects.exists()


def test_automation_needs_no_threshold_and_the_kind_cannot_change():
    project = ProjectFactory()
    rule = rule_add(project=project, actor=None, data={"kind": "automation", "min_answers": 1})
    assert rule.threshold == 0.0
    with pytest.raises(RuleInvalid) as refused:
        rule_change(rule=rule, actor=None, data={"kind": "too_fast"})
    assert "cannot change" in refused.value.errors["kind"]
    assert rule_clean(data={"min_answers": 3}, rule=rule)["min_answers"] == 3
