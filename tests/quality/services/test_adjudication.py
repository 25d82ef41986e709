"""Deciding a contested item: validated by the task type, one decision per item, every decision
audited, and a gold question's answer corrected on request."""

import pytest

from annotation.models import AuditEntry, ItemKind
from quality.models import Adjudication, GoldAnswer
from quality.services.adjudication import AdjudicationInvalid, item_adjudicate
from tests.annotation.quality_helpers import gold_item, split_item
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_decision_is_stored_with_who_why_and_audited():
    project = ProjectFactory()
    item = split_item(project)
    admin = UserFactory(role="admin")
    decision = item_adjudicate(item=item, answer={"label": "a2"}, why="  A2 cites a source. ", actor=admin,
                               contested=["split"])
    assert (decision.answer, decision.why, decision.decided_by, decision.contested) == (
        {"label": "a2"}, "A2 cites a source.", admin, ["split"])
    entry = AuditEntry.objects.get(action="adjudicate")
    assert entry.actor == admin and entry.project == project and entry.target == f"item {item.external_id}"
    assert entry.details["answer"] == {"label": "a2"} and entry.details["previous"] is None


def test_a_later_decision_replaces_the_earlier_and_the_log_keeps_both():
    item = split_item(ProjectFactory())
    first, second = UserFactory(role="admin"), UserFactory(role="admin")
    item_adjudicate(item=item, answer={"label": "a1"}, why="first look", actor=first)
    again = item_adjudicate(item=item, answer={"label": "equal"}, why="on reflection a tie", actor=second)
    assert Adjudication.objects.filter(item=item).count() == 1
    assert (again.answer, again.why, again.decided_by) == ({"label": "equal"}, "on reflection a tie", second)
    entries = list(AuditEntry.objects.filter(action="adjudicate").order_by("at", "pk"))
    assert len(entries) == 2
    assert entries[1].details["previous"]["answer"] == {"label": "a1"}
    assert entries[1].details["previous"]["why"] == "first look"
    assert entries[1].details["previous"]["decided_by"] == first.username


@pytest.mark.parametrize(("answer", "why", "field"), [
    ({"label": "a3"}, "why not", "answer.label"),
    ({}, "why not", "answer.label"),
    ({"label": "a1", "standpoint": "none"}, "why not", "answer.standpoint"),
    ({"label": "a1", "accept": [{"label": "equal"}]}, "why not", "answer.accept"),
    ("a1", "why not", "answer"),
    ({"label": "a1"}, "   ", "why"),
    ({"label": "a1"}, "x" * 2001, "why"),
])
def test_bad_decisions_are_refused_naming_the_field_and_change_nothing(answer, why, field):
    item = split_item(ProjectFactory())
    with pytest.raises(AdjudicationInvalid) as refused:
        item_adjudicate(item=item, answer=answer, why=why, actor=UserFactory(role="admin"))
    assert field in refused.value.errors
    assert not Adjudication.objects.exists() and not AuditEntry.objects.exists()


def test_a_gold_question_may_get_the_decision_as_its_gold_answer():
    project = ProjectFactory()
    item = gold_item(project, right=0, wrong=3, expected="a1")
    GoldAnswer.objects.create(item=item, answer={"label": "a1"}, explanation="A1 is longer")
    item_adjudicate(item=item, answer={"label": "a2"}, why="the gold answer was wrong", actor=UserFactory(role="admin"),
                    make_gold=True)
    gold = GoldAnswer.objects.get(item=item)
    assert gold.answer == {"label": "a2"} and gold.explanation == "A1 is longer"
    details = AuditEntry.objects.get(action="adjudicate").details
    assert details["gold_corrected"] is True and details["gold_before"] == {"label": "a1"}
    # Without the checkbox the gold answer stays.
    item_adjudicate(item=item, answer={"label": "equal"}, why="tie", actor=None)
    assert GoldAnswer.objects.get(item=item).answer == {"label": "a2"}


def test_only_a_gold_question_has_a_gold_answer_to_correct():
    item = ItemFactory(project=ProjectFactory(), kind=ItemKind.REAL)
    with pytest.raises(AdjudicationInvalid) as refused:
        item_adjudicate(item=item, answer={"label": "a1"}, why="w", actor=None, make_gold=True)
    assert "make_gold" in refused.value.errors
    assert not GoldAnswer.objects.exists() and not Adjudication.objects.exists()
