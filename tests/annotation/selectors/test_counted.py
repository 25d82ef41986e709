"""Gold and training answers are never annotations of their item, and a withdrawn item's answers
leave the data: not in the long frame, the agreement report's input, any raw export format, the
item table's votes, the answers per hour or the project's progress; a promoted gold question's
earlier answers stay."""

import json

import pytest
from django.utils import timezone

from analysis.frames import annotation_frame
from analysis.reports import get_report
from analysis.selectors import annotations_since, run_state
from analysis.services import report_input
from annotation.exports import FORMATS, annotation_rows, export_response
from annotation.models import CHECK_ITEM_REDUNDANCY, Annotation, Assignment, ItemKind, Purpose
from annotation.selectors.progress import project_progress
from annotation.selectors.staff import item_table
from annotation.selectors.tallies import count_per_hour
from annotation.task_types import get_task_type
from quality.models import GoldAnswer
from quality.services.gold_items import items_promote_gold
from recruiting.models import Bonus
from recruiting.services.bonuses import bonus_grant_new
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Assignment.Status
# A choice type with a reason (pairwise) and a set-valued type with "None" (key points).
TYPES = ("pairwise", "key_points")


def answer_of(slug: str) -> dict:
    task = get_task_type(slug)
    example = task.example()
    payload = task.clean_item(example.records[0]).payload
    return task.clean_answer(example.answer, payload=payload).answer


def answered(item, worker, *, purpose=Purpose.TASK, answer=None, seconds=12.0):
    a = AssignmentFactory(item=item, worker=worker, status=Status.SUBMITTED, submitted_at=timezone.now(),
                          purpose=purpose)
    return Annotation.objects.create(assignment=a, answer=answer or answer_of(item.project.task_type), seconds=seconds)


def example_item(project, external_id, *, kind=ItemKind.REAL):
    task = get_task_type(project.task_type)
    payload = task.clean_item(task.example().records[0]).payload
    redundancy = CHECK_ITEM_REDUNDANCY if kind in (ItemKind.GOLD, ItemKind.TRAINING) else project.redundancy
    return ItemFactory(project=project, external_id=external_id, payload=payload, kind=kind, redundancy=redundancy)


@pytest.fixture(params=TYPES)
def mixed(request):
    """A project with a real item answered twice, a gold question and a training item answered
    as such (by the same workers), and a withdrawn item answered as a task."""
    project = ProjectFactory(task_type=request.param, redundancy=2)
    workers = [UserFactory(username=f"{request.param}-w{n}") for n in range(2)]
    real = example_item(project, "real-1")
    gold = example_item(project, "gold-1", kind=ItemKind.GOLD)
    training = example_item(project, "training-1", kind=ItemKind.TRAINING)
    withdrawn = example_item(project, "withdrawn-1", kind=ItemKind.WITHDRAWN)
    kept = [answered(real, w) for w in workers]
    checks = [answered(gold, w, purpose=Purpose.GOLD) for w in workers]
    checks += [answered(training, w, purpose=Purpose.TRAINING) for w in workers]
    checks += [answered(withdrawn, workers[0])]
    return project, kept, checks


def test_the_long_frame_holds_only_the_real_items_answers(mixed):
    project, kept, checks = mixed
    loaded = annotation_frame(project=project)
    assert set(loaded.frame["item"]) == {"real-1"}
    assert set(loaded.frame["annotation"]) == {a.pk for a in kept}
    assert loaded.annotations == len(kept)
    assert set(annotation_frame(project=project, counted_only=False).frame["annotation"]) == {a.pk for a in kept}


def test_the_agreement_report_sees_neither_check_answers_nor_check_items(mixed):
    project, kept, _ = mixed
    data = report_input(project=project, frame=annotation_frame(project=project).frame)
    assert list(data.items["item"]) == ["real-1"]
    report = get_report("agreement")
    result = report.run(data, report.clean_params({"n_boot": 0, "mace_restarts": 1}), lambda *a: None)
    assert result["items_in_project"] == 1
    assert sorted(w["worker"] for w in result["workers"]) == sorted(a.assignment.worker.username for a in kept)
    assert sum(w["annotations"] for w in result["workers"]) == len(kept)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_raw_export_format_leaves_check_answers_out(mixed, fmt):
    project, kept, checks = mixed
    body = b"".join(chunk.encode() if isinstance(chunk, str) else chunk
                    for chunk in export_response(project=project, fmt=fmt).streaming_content).decode()
    for a in kept:
        assert f"{a.assignment_id}" in body
    assert "real-1" in body
    for name in ("gold-1", "training-1", "withdrawn-1"):
        assert name not in body
    if fmt == "json":
        assert {row["assignment"] for row in json.loads(body)} == {a.assignment_id for a in kept}
    every = {row["assignment"] for row in annotation_rows(project=project, counted_only=False)}
    assert every == {a.assignment_id for a in kept}


def test_progress_and_the_item_table_count_real_items_only(mixed):
    project, kept, _ = mixed
    progress = project_progress(project=project)
    assert (progress.items, progress.complete, progress.submitted, progress.target, progress.open) == (1, 1, 2, 2, 0)
    assert progress.percent == 100.0
    table = item_table(project=project)
    assert [row.external_id for row in table.rows] == ["real-1"]
    assert sum(n for _, n in table.rows[0].votes) == len(kept)
    assert sum(n for _, n in count_per_hour(project=project)) == len(kept)


def test_an_open_gold_assignment_is_no_open_slot_of_the_project(mixed):
    project, _, _ = mixed
    gold = project.items.get(external_id="gold-1")
    AssignmentFactory(item=gold, worker=UserFactory(), purpose=Purpose.GOLD)
    progress = project_progress(project=project)
    assert (progress.items, progress.complete, progress.open, progress.submitted) == (1, 1, 0, 2)


def test_the_analysis_dashboard_counts_data_only(mixed):
    project, kept, _ = mixed
    state = run_state(project=project, kind="agreement")
    assert state.annotations == len(kept) and state.has_annotations


def test_gold_answers_earn_the_bonus_a_real_item_would_and_training_answers_none(monkeypatch):
    """A worker promised a bonus per right answer must not find the gold questions in their
    ledger by the bonuses missing there."""
    project = ProjectFactory(task_type="pairwise")
    task = get_task_type("pairwise")
    monkeypatch.setattr(type(task), "bonus_for", lambda self, **kw: (1, "right answer"))
    gold = example_item(project, "g", kind=ItemKind.GOLD)
    training = example_item(project, "t", kind=ItemKind.TRAINING)
    real = example_item(project, "r")
    check = answered(gold, UserFactory(), purpose=Purpose.GOLD)
    trained = answered(training, UserFactory(), purpose=Purpose.TRAINING)
    data = answered(real, UserFactory())
    assert bonus_grant_new(annotation=trained, assignment=trained.assignment, task=task) is None
    assert bonus_grant_new(annotation=check, assignment=check.assignment, task=task) is not None
    assert bonus_grant_new(annotation=data, assignment=data.assignment, task=task) is not None
    assert sorted(Bonus.objects.values_list("annotation_id", flat=True)) == sorted([check.pk, data.pk])


@pytest.mark.parametrize("slug", TYPES)
def test_a_promoted_items_earlier_answers_stay_data(slug):
    project = ProjectFactory(task_type=slug, redundancy=2)
    item = example_item(project, "unanimous")
    earlier = [answered(item, UserFactory()) for _ in range(2)]
    admin = UserFactory(role="admin")
    assert items_promote_gold(project=project, actor=admin, min_answers=2) == 1
    item.refresh_from_db()
    assert (item.kind, item.redundancy) == (ItemKind.GOLD, CHECK_ITEM_REDUNDANCY)
    assert GoldAnswer.objects.get(item=item).source == GoldAnswer.Source.PROMOTED
    later = answered(item, UserFactory(), purpose=Purpose.GOLD)
    loaded = annotation_frame(project=project)
    assert set(loaded.frame["annotation"]) == {a.pk for a in earlier}
    assert later.pk not in set(loaded.frame["annotation"])
    assert list(report_input(project=project, frame=loaded.frame).items["item"]) == ["unanimous"]
    assert {row["assignment"] for row in annotation_rows(project=project)} == {a.assignment_id for a in earlier}
    assert set(Assignment.objects.filter(item=item, purpose=Purpose.TASK).values_list("pk", flat=True)) == {
        a.assignment_id for a in earlier}


def test_answers_since_a_run_count_data_only(mixed):
    from analysis.models import AnalysisRun

    project, kept, checks = mixed
    run = AnalysisRun.objects.create(project=project, kind="agreement", last_annotation_id=min(a.pk for a in kept) - 1,
                                     started_at=timezone.now())
    assert annotations_since(run=run) == len(kept)


def test_the_key_point_corpus_files_hold_the_data_items_only():
    from task_types.key_points.selectors import corpus_files

    project = ProjectFactory(task_type="key_points")
    task = get_task_type("key_points")
    check, real = (task.clean_item(r) for r in task.example().records)
    ItemFactory(project=project, external_id=check.external_id, payload=check.payload, kind=ItemKind.GOLD,
                redundancy=CHECK_ITEM_REDUNDANCY, gold=check.gold)
    ItemFactory(project=project, external_id=real.external_id, payload=real.payload)
    text = "".join(corpus_files(project=project).values())
    assert real.payload["argument"][:40] in text
    assert check.payload["argument"][:40] not in text
