"""The engine's extension points for the apps above it: the ledger port (an answer's money
follows it, and without a ledger nothing is recorded), page sections (what a place shows, in
order, and as JSON), and a project's panel (none by default; a study link needs one)."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

import annotation.ledger_port as ledger_port
from annotation import page_sections
from annotation.page_sections import (
    OVERVIEW,
    WORKER_END,
    Section,
    section_register,
    section_unregister,
)
from annotation.providers import NO_PANEL, provider_of
from annotation.services import annotation_submit, assignment_next, assignment_review
from annotation.task_types import get_task_type
from recruiting.models import Bonus
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


class RecordingLedger:
    def __init__(self) -> None:
        self.told: list[tuple] = []

    def answer_stored(self, *, annotation, assignment, task, counted):
        self.told.append(("stored", assignment.pk, counted, task.slug))

    def answer_counts_again(self, *, annotation):
        self.told.append(("again", annotation.assignment_id))

    def answer_uncounted(self, *, assignment):
        self.told.append(("uncounted", assignment.pk))


@pytest.fixture
def recording_ledger(monkeypatch):
    ledger = RecordingLedger()
    monkeypatch.setattr(ledger_port, "_LEDGER", [ledger])
    return ledger


@pytest.fixture
def paying_pairwise(monkeypatch):
    monkeypatch.setattr(get_task_type("pairwise"), "bonus_for",
                        lambda *, answer, gold, options: (Decimal("0.25"), "every answer"))


def test_the_engine_tells_the_ledger_of_each_answer_in_its_transaction(recording_ledger):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker, reviewer = UserFactory(), UserFactory(is_staff=True)
    a = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    annotation_submit(assignment=a, worker=worker, data=answer("a1"))  # a replay is told nothing
    assignment_review(assignment=a, approve=False, reviewer=reviewer, note="off topic")
    assignment_review(assignment=a, approve=True, reviewer=reviewer, note="on second look fine")
    assert recording_ledger.told == [("stored", a.pk, True, "pairwise"), ("uncounted", a.pk), ("again", a.pk)]


def test_without_a_ledger_answers_are_stored_and_nothing_is_owed(monkeypatch, paying_pairwise):
    monkeypatch.setattr(ledger_port, "_LEDGER", [])
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    result = annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    assert result.created and result.counted
    assert not Bonus.objects.exists()


def test_recruitings_ledger_grants_the_types_bonus(paying_pairwise):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    assert list(Bonus.objects.values_list("worker_id", "amount")) == [(worker.pk, Decimal("0.25"))]


def test_a_place_shows_its_sections_in_order_and_hides_those_with_nothing():
    project = ProjectFactory()
    first = Section("t-first", "x.html", lambda *, project: {"slug": project.slug})
    empty = Section("t-empty", "y.html", lambda *, project: None)
    try:
        section_register(OVERVIEW, first)
        section_register(OVERVIEW, empty)
        shown = [s for s in page_sections.sections_shown(OVERVIEW, project=project) if s.key.startswith("t-")]
        assert [(s.key, s.template, s.value) for s in shown] == [("t-first", "x.html", {"slug": project.slug})]
    finally:
        section_unregister(OVERVIEW, "t-first")
        section_unregister(OVERVIEW, "t-empty")


def test_a_sections_json_is_null_when_it_has_nothing_to_show():
    project, worker = ProjectFactory(), UserFactory()
    section = Section("t-json", "z.html", lambda *, project, worker: None, data=lambda value: ["never"])
    try:
        section_register(WORKER_END, section)
        assert page_sections.sections_data(WORKER_END, project=project, worker=worker)["t-json"] is None
    finally:
        section_unregister(WORKER_END, "t-json")


def test_an_unknown_place_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown place 'sidebar'; known places: overview"):
        section_register("sidebar", Section("k", "t.html", lambda **_: None))


def test_a_new_project_has_no_panel_and_no_provider():
    project = ProjectFactory()
    assert project.panel == NO_PANEL and provider_of(project) is None
    project.full_clean()


def test_a_project_taking_study_links_must_name_its_panel():
    project = ProjectFactory(external_entry=True)
    with pytest.raises(ValidationError) as caught:
        project.full_clean()
    assert "panel" in caught.value.message_dict
    project.panel = "prolific"
    project.full_clean()
