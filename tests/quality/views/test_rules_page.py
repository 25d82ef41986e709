"""The staff page of a project's quality rules: listing, adding (with field errors), changing,
enabling, disabling, deleting, checking now, and the decisions with their evidence in words."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

from annotation.models import AuditEntry
from annotation.staff_links import staff_links
from quality.models import QualityRule, RuleDecision, WorkerStanding
from tests.factories import ProjectFactory, UserFactory
from tests.quality.rules.helpers import rule

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(client):
    user = UserFactory(role="admin")
    client.force_login(user)
    return user


def url(name, project, *args):
    return reverse(name, args=[project.slug, *args])


def test_the_overview_links_the_page_and_only_staff_may_open_it(client):
    project = ProjectFactory()
    assert (url("quality-rules", project), "Quality rules") in staff_links(project=project)
    assert client.get(url("quality-rules", project)).status_code == 302  # to the login form
    client.force_login(UserFactory())
    assert client.get(url("quality-rules", project)).status_code == 403
    assert client.post(url("quality-rule-add", project), {"kind": "too_fast"}).status_code == 403
    assert not QualityRule.objects.exists()


def test_a_researcher_sees_the_page_but_may_not_change_rules(client):
    project = ProjectFactory()
    rule(project, QualityRule.Kind.TOO_FAST, threshold=0.1)
    client.force_login(UserFactory(role="researcher"))
    page = client.get(url("quality-rules", project))
    assert page.status_code == 200
    body = page.content.decode()
    # The rules and what they decided are shown; the controls a researcher may not use are not.
    assert 'data-testid="rules"' in body and "Too many answers faster" in body
    assert 'data-testid="add-rule"' not in body and 'data-testid="check-rules"' not in body
    assert ">Delete</button>" not in body and "?edit=" not in body
    assert client.post(url("quality-rules-check", project)).status_code == 403


def test_add_a_rule_and_see_field_errors(client, admin):
    project = ProjectFactory()
    body = client.get(url("quality-rules", project)).content.decode()
    assert "This project has no rules yet" in body and "Check the rules now" in body
    bad = client.post(url("quality-rule-add", project), {"kind": "gold_accuracy", "action": "block", "threshold": "1.4",
                                                         "min_answers": "5", "share_of_median": "0.25", "confidence": "0.95",
                                                         "enabled": "on"})
    assert bad.status_code == 400
    assert "threshold: must be above 0 to 1 for a rule of kind gold_accuracy, not 1.4" in bad.content.decode()
    assert not QualityRule.objects.exists()
    good = client.post(url("quality-rule-add", project), {"kind": "gold_accuracy", "action": "block", "threshold": "0.7",
                                                          "min_answers": "5", "share_of_median": "0.25",
                                                          "confidence": "0.95", "enabled": "on"})
    assert good.status_code == 302
    added = QualityRule.objects.get()
    assert (added.project, added.threshold, added.action, added.enabled) == (project, 0.7, "block", True)
    assert AuditEntry.objects.get(action="rule_add").actor == admin
    body = client.get(url("quality-rules", project)).content.decode()
    assert "Gold accuracy below a bar" in body and "0.700" in body


def test_edit_enable_disable_delete_are_audited_and_scoped(client, admin):
    project, other = ProjectFactory(), ProjectFactory()
    mine = rule(project, "too_fast", threshold=0.2)
    theirs = rule(other, "too_fast", threshold=0.2)
    page = client.get(url("quality-rules", project), {"edit": mine.pk}).content.decode()
    assert f"Change rule {mine.pk}" in page
    fields = {"action": "block", "threshold": "0.3", "min_answers": "7", "share_of_median": "0.2", "confidence": "0.9",
              "enabled": "on"}
    assert client.post(url("quality-rule-edit", project, mine.pk), fields).status_code == 302
    mine.refresh_from_db()
    assert (mine.threshold, mine.min_answers, mine.action, mine.share_of_median, mine.confidence) == (0.3, 7, "block", 0.2, 0.9)
    bad = client.post(url("quality-rule-edit", project, mine.pk), {**fields, "confidence": "1.2"})
    assert bad.status_code == 400 and "confidence: must be above 0.5 and below 1" in bad.content.decode()
    assert client.post(url("quality-rule-disable", project, mine.pk)).status_code == 302
    mine.refresh_from_db()
    assert not mine.enabled
    assert client.post(url("quality-rule-enable", project, mine.pk)).status_code == 302
    mine.refresh_from_db()
    assert mine.enabled
    # Another project's rule through this project's address: 404, unchanged.
    for name in ("quality-rule-edit", "quality-rule-disable", "quality-rule-delete"):
        assert client.post(url(name, project, theirs.pk), fields).status_code == 404
    theirs.refresh_from_db()
    assert theirs.enabled and theirs.threshold == 0.2
    assert client.post(url("quality-rule-delete", project, mine.pk)).status_code == 302
    assert list(QualityRule.objects.all()) == [theirs]
    actions = list(AuditEntry.objects.filter(project=project).order_by("pk").values_list("action", flat=True))
    assert actions == ["rule_change", "rule_change", "rule_change", "rule_delete"]


def test_check_now_lists_what_it_found_and_shows_the_decisions_in_words(client, admin):
    project = ProjectFactory()
    worker = UserFactory(username="guesser")
    WorkerStanding.objects.create(project=project, worker=worker, gold_answered=12, gold_right=2)
    # 2 of 9 right would not do: the test needs more than the 16 times that ratio reaches.
    WorkerStanding.objects.create(project=project, worker=UserFactory(username="unlucky"), gold_answered=9,
                                  gold_right=2)
    gold = rule(project, "gold_accuracy", threshold=0.7, min_answers=5, action="block")
    response = client.post(url("quality-rules-check", project), follow=True)
    body = response.content.decode()
    assert "1 finding, 1 new decision." in body
    said = ("10 of 12 gold answers wrong (accuracy 17%): 36 times likelier for a worker at 55% than at the bar of "
            "70%, past the 20 times the rule needs (a worker at the bar: at most 5% of studies)")
    found = response.context["check_rows"]
    assert [(row["worker"], row["rule"], row["words"]) for row in found] == [("guesser", gold, said)]
    assert found[0]["decision"].action == "block" and "new: block in the project" in body
    assert f"{said}: blocked" in body  # and among the decisions
    assert "unlucky" not in body and f"rule check by {admin.username}" in body
    assert RuleDecision.objects.count() == 1
    # Checked again: the finding is listed, with no new decision.
    again = client.post(url("quality-rules-check", project))
    assert "1 finding, 0 new decisions." in again.content.decode()
    assert "none new (already decided on this evidence, or already there)" in again.content.decode()


def test_a_long_check_lists_the_first_findings_and_counts_the_rest(client, admin, monkeypatch):
    from quality.views import rules as rules_views

    monkeypatch.setattr(rules_views, "CHECK_SHOWN", 1)
    project = ProjectFactory()
    for name in ("first-guesser", "second-guesser", "third-guesser"):
        WorkerStanding.objects.create(project=project, worker=UserFactory(username=name), gold_answered=12, gold_right=2)
    rule(project, "gold_accuracy", threshold=0.7, min_answers=5, action="review")
    response = client.post(url("quality-rules-check", project), follow=True)
    body = response.content.decode()
    assert "3 findings, 3 new decisions." in body
    assert len(response.context["check_rows"]) == 1 and response.context["check_more"] == 2
    assert "And 2 more findings: their decisions are in the list below" in body


def test_decisions_are_paged_newest_first(client, admin):
    project = ProjectFactory()
    gold = rule(project, "gold_accuracy", threshold=0.7)
    from django.utils import timezone

    workers = [UserFactory(username=f"w{n:02d}") for n in range(55)]
    start = timezone.now()
    RuleDecision.objects.bulk_create([
        RuleDecision(project=project, worker=w, rule=gold, kind="gold_accuracy", action="review", trigger="test",
                     evidence={"right": 0, "answered": 5}, decided_at=start + timezone.timedelta(seconds=n))
        for n, w in enumerate(workers)])
    first = client.get(url("quality-rules", project)).content.decode()
    assert first.index(">w54<") < first.index(">w53<") and ">w04<" not in first and "page 1 of 2" in first
    second = client.get(url("quality-rules", project), {"page": 2}).content.decode()
    assert ">w04<" in second and ">w54<" not in second


def test_the_page_states_how_often_the_rules_err_with_the_command_and_a_new_rule_starts_from_its_kinds_defaults(
        client, admin):
    from quality.rules.error_rates import MEASURED

    project = ProjectFactory()
    body = client.get(url("quality-rules", project)).content.decode()
    assert "How often the rules err" in body and "python bench/quality/rules_simulation.py --write" in body
    at_bar = next(row for row in MEASURED["workers"] if row["worker"] == "at the bar")
    assert f"<td class=\"num\">{at_bar['gold']}</td>" in body and MEASURED["competence"]["coverage"] in body
    # The competence rule's column: measured for the worker at the bar, not for always first.
    always_first = next(row for row in MEASURED["workers"] if row["worker"] == "always first")
    assert ">Competence</th>" in body and at_bar["competence"].endswith("%")
    assert f"<td class=\"num\">{at_bar['position']}</td><td class=\"num\">{at_bar['competence']}</td>" in body
    assert f"<td class=\"num\">{always_first['competence']}</td>" in body
    form = client.get(url("quality-rules", project)).context["form"]
    assert (form["kind"].initial, form["threshold"].initial, form["min_answers"].initial) == ("gold_accuracy", 0.7, 5)
    form = client.get(url("quality-rules", project), {"kind": "too_fast"}).context["form"]
    assert (form["kind"].initial, form["threshold"].initial, form["share_of_median"].initial) == ("too_fast", 0.1, 0.25)


def test_the_simulation_writes_its_table_where_the_rules_page_reads_it(monkeypatch):
    import importlib.util
    import sys

    from quality.rules import error_rates

    path = Path(__file__).resolve().parents[3] / "bench" / "quality" / "rules_simulation.py"
    spec = importlib.util.spec_from_file_location("rules_simulation", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    # Its dataclasses look their module up while the module loads.
    monkeypatch.setitem(sys.modules, spec.name, bench)
    spec.loader.exec_module(bench)
    assert bench.TABLE_MODULE == Path(error_rates.__file__).resolve()
