"""The quality rules through the API: the same checks and audit log as the page, staff only,
another project's ids a 404 that changes nothing."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation.models import AuditEntry
from quality.models import QualityRule, RuleDecision, WorkerStanding
from tests.factories import ProjectFactory, UserFactory
from tests.quality.rules.helpers import rule
from tests.support.openapi_conformance import assert_conforms

pytestmark = pytest.mark.django_db


def api(user=None) -> APIClient:
    client = APIClient()
    client.force_authenticate(user or UserFactory(role="admin"))
    return client


def test_add_list_read_change_delete():
    project = ProjectFactory(slug="p")
    client = api()
    made = client.post("/api/projects/p/rules/", {"kind": "too_fast", "threshold": 0.2, "share_of_median": 0.3,
                                                  "action": "block"}, format="json")
    assert made.status_code == 201, made.content
    pk = made.json()["id"]
    assert made.json()["kind"] == "too_fast" and made.json()["min_answers"] == 5 and made.json()["enabled"] is True
    assert [r["id"] for r in client.get("/api/projects/p/rules/").json()] == [pk]
    assert client.get(f"/api/projects/p/rules/{pk}/").json()["share_of_median"] == 0.3
    changed = client.patch(f"/api/projects/p/rules/{pk}/", {"enabled": False, "min_answers": 9}, format="json")
    assert changed.status_code == 200 and changed.json()["enabled"] is False and changed.json()["min_answers"] == 9
    assert client.delete(f"/api/projects/p/rules/{pk}/").status_code == 204
    assert not QualityRule.objects.filter(project=project).exists()
    assert list(AuditEntry.objects.order_by("pk").values_list("action", flat=True)) == ["rule_add", "rule_change", "rule_delete"]


def test_bad_settings_are_refused_naming_the_field():
    ProjectFactory(slug="p")
    client = api()
    refused = client.post("/api/projects/p/rules/", {"kind": "competence", "threshold": 2, "confidence": 0.3},
                          format="json")
    assert refused.status_code == 400
    errors = refused.json()
    assert "threshold" in errors and "confidence" in errors and "for a rule of kind competence" in errors["threshold"][0]
    made = client.post("/api/projects/p/rules/", {"kind": "competence", "threshold": 0.4}, format="json").json()
    bad = client.patch(f"/api/projects/p/rules/{made['id']}/", {"min_answers": -1}, format="json")
    assert bad.status_code == 400 and "min_answers" in bad.json()
    assert QualityRule.objects.get().min_answers == 5
    assert client.post("/api/projects/p/rules/", [1, 2], format="json").status_code == 400


def test_another_projects_rule_is_a_404_and_stays_as_it_was():
    ProjectFactory(slug="mine")
    other = ProjectFactory(slug="theirs")
    theirs = rule(other, "gold_accuracy", threshold=0.7)
    client = api()
    assert client.get(f"/api/projects/mine/rules/{theirs.pk}/").status_code == 404
    assert client.patch(f"/api/projects/mine/rules/{theirs.pk}/", {"threshold": 0.1}, format="json").status_code == 404
    assert client.delete(f"/api/projects/mine/rules/{theirs.pk}/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.threshold == 0.7 and not AuditEntry.objects.exists()
    assert client.get("/api/projects/nowhere/rules/").status_code == 404


def test_staff_only():
    project = ProjectFactory(slug="p")
    existing = rule(project, "gold_accuracy", threshold=0.7)
    annotator = api(UserFactory())
    assert annotator.get("/api/projects/p/rules/").status_code == 403
    assert annotator.post("/api/projects/p/rules/", {"kind": "automation"}, format="json").status_code == 403
    assert annotator.post("/api/projects/p/rules/check/").status_code == 403
    assert annotator.get("/api/projects/p/rule-decisions/").status_code == 403
    researcher = api(UserFactory(role="researcher"))
    assert researcher.get("/api/projects/p/rules/").status_code == 200
    assert researcher.patch(f"/api/projects/p/rules/{existing.pk}/", {"threshold": 0.1}, format="json").status_code == 403
    assert researcher.delete(f"/api/projects/p/rules/{existing.pk}/").status_code == 403
    assert APIClient().get("/api/projects/p/rules/").status_code in (401, 403)
    existing.refresh_from_db()
    assert existing.threshold == 0.7


def test_check_now_and_the_decisions_in_words():
    project = ProjectFactory(slug="p")
    other = ProjectFactory(slug="q")
    worker = UserFactory(username="guesser")
    WorkerStanding.objects.create(project=project, worker=worker, gold_answered=20, gold_right=2)
    WorkerStanding.objects.create(project=other, worker=worker, gold_answered=20, gold_right=2)
    gold = rule(project, "gold_accuracy", threshold=0.7, min_answers=5, action="block")
    client = api()
    checked = client.post("/api/projects/p/rules/check/").json()
    assert [d["worker"] for d in checked["decisions"]] == ["guesser"] and checked["found"] == {str(gold.pk): 1}
    listed = client.get("/api/projects/p/rule-decisions/").json()
    assert listed["count"] == 1 and listed["pages"] == 1
    [row] = listed["results"]
    assert row["kind"] == "gold_accuracy" and row["action"] == "block" and row["rule"] == gold.pk
    assert row["evidence"]["right"] == 2 and row["words"].startswith("18 of 20 gold answers wrong (accuracy 10%)")
    assert row["words"].endswith("than at the bar of 70%, past the 20 times the rule needs (a worker at the bar: at "
                                 "most 5% of studies): blocked")
    # The other project has no rules and no decisions.
    assert client.get("/api/projects/q/rule-decisions/").json()["count"] == 0
    assert RuleDecision.objects.filter(project=other).count() == 0
    assert WorkerStanding.objects.get(project=other, worker=worker).state == "active"


def test_check_now_returns_what_it_found_as_the_page_lists_it():
    project = ProjectFactory(slug="p", keep_import_order=True)
    worker = UserFactory(username="guesser")
    WorkerStanding.objects.create(project=project, worker=worker, gold_answered=12, gold_right=2)
    WorkerStanding.objects.create(project=project, worker=UserFactory(username="unlucky"), gold_answered=9,
                                  gold_right=2)
    gold = rule(project, "gold_accuracy", threshold=0.7, min_answers=5, action="block")
    bias = rule(project, "position_bias", threshold=0.2, min_answers=5, action="review")
    client = api()
    response = client.post("/api/projects/p/rules/check/")
    assert response.status_code == 200
    assert_conforms(response, "POST", "/api/projects/p/rules/check/")
    checked = response.json()
    decision = RuleDecision.objects.get()
    said = ("10 of 12 gold answers wrong (accuracy 17%): 36 times likelier for a worker at 55% than at the bar of "
            "70%, past the 20 times the rule needs (a worker at the bar: at most 5% of studies)")
    [found] = checked["findings"]
    assert (found["worker"], found["worker_id"], found["rule"], found["kind"]) == ("guesser", worker.pk, gold.pk,
                                                                                   "gold_accuracy")
    assert (found["evidence"]["answered"], found["evidence"]["right"]) == (12, 2) and found["words"] == said
    assert (found["decision"], found["decided"]) == (decision.pk, "new: block in the project")
    [unjudged] = checked["unjudged"]
    assert (unjudged["rule"], unjudged["kind"]) == (bias.pk, "position_bias")
    assert unjudged["why"].startswith("cannot judge: the project shows every item's options in import order")
    # Checked again: the same finding, with no new decision, in the page's words.
    again = client.post("/api/projects/p/rules/check/")
    assert_conforms(again, "POST", "/api/projects/p/rules/check/")
    [found] = again.json()["findings"]
    assert found["words"] == said and found["decision"] is None
    assert found["decided"] == "none new (already decided on this evidence, or already there)"
    assert again.json()["decisions"] == [] and RuleDecision.objects.count() == 1
