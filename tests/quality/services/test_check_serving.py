"""The engine hands out gold questions at the project's rate and training rounds, under its
invariants, and stops workers blocked or screened out in the project."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Assignment, Item, ItemKind, Purpose, Standing
from annotation.services import annotation_submit, assignment_next
from annotation.task_types import get_task_type
from annotation.task_types.shown_order import assignment_seed, order_for
from quality.models import TrainingRound, WorkerStanding
from quality.services import check_serving as serving
from quality.services.standing import standing_set
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db


@pytest.fixture
def always_gold(monkeypatch):
    monkeypatch.setattr(serving, "draw", lambda: 0.0)


@pytest.fixture
def never_gold(monkeypatch):
    monkeypatch.setattr(serving, "draw", lambda: 0.999)


def answer_all(project, worker, limit=50):
    got = []
    for _ in range(limit):
        result = assignment_next(project=project, worker=worker)
        if result.assignment is None:
            return got, result
        got.append(result.assignment)
        annotation_submit(assignment=result.assignment, worker=worker, data=answer())
    raise AssertionError("the loop did not end")


def test_without_a_policy_only_real_items_are_served_and_the_standing_is_active():
    project = ProjectFactory(redundancy=1)
    real = [ItemFactory(project=project) for _ in range(3)]
    check_item(project, kind=ItemKind.GOLD)
    check_item(project, kind=ItemKind.TRAINING)
    ItemFactory(project=project, kind=ItemKind.WITHDRAWN)
    worker = UserFactory()
    got, last = answer_all(project, worker)
    assert [a.item_id for a in got] == [i.pk for i in real]
    assert {a.purpose for a in got} == {Purpose.TASK} and last.reason == "done"
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.ACTIVE


def test_gold_is_drawn_at_the_rate_never_twice_and_real_items_follow_when_none_is_left(always_gold):
    project = ProjectFactory(redundancy=2)
    quality_policy(project, gold_rate=0.2)
    gold = {check_item(project).pk for _ in range(2)}
    real = {ItemFactory(project=project).pk for _ in range(2)}
    worker = UserFactory()
    got, last = answer_all(project, worker)
    by_purpose = {p: {a.item_id for a in got if a.purpose == p} for p in (Purpose.GOLD, Purpose.TASK)}
    assert by_purpose == {Purpose.GOLD: gold, Purpose.TASK: real}
    assert [a.purpose for a in got][:2] == [Purpose.GOLD, Purpose.GOLD] and last.reason == "done"
    # Many workers take the same gold question: its slots never run out.
    other = UserFactory()
    again, _ = answer_all(project, other)
    assert {a.item_id for a in again if a.purpose == Purpose.GOLD} == gold


def test_no_gold_question_comes_once_the_real_items_are_done(always_gold):
    """Otherwise an item handed out after "nothing left" would be known to be gold."""
    project = ProjectFactory(redundancy=1)
    quality_policy(project, gold_rate=0.5)
    gold = {check_item(project).pk for _ in range(3)}
    real = ItemFactory(project=project)
    first = UserFactory()
    got, _ = answer_all(project, first)
    assert real.pk in {a.item_id for a in got}
    late = UserFactory()
    for _ in range(5):
        result = assignment_next(project=project, worker=late)
        assert result.assignment is None and result.reason == "done"
    assert not Assignment.objects.filter(worker=late, item_id__in=gold).exists()


def test_a_draw_above_the_rate_serves_a_real_item(never_gold):
    project = ProjectFactory()
    quality_policy(project, gold_rate=0.5)
    check_item(project)
    real = ItemFactory(project=project)
    result = assignment_next(project=project, worker=UserFactory())
    assert result.assignment.item_id == real.pk and result.assignment.purpose == Purpose.TASK


def test_gold_shows_its_options_in_an_order_drawn_like_a_real_items(always_gold):
    project = ProjectFactory()
    quality_policy(project, gold_rate=0.5)
    ItemFactory(project=project)
    item = check_item(project)
    worker = UserFactory()
    claimed = assignment_next(project=project, worker=worker).assignment
    assert claimed.item_id == item.pk
    parts = get_task_type(project.task_type).order_parts(item.payload)
    assert claimed.shown_order == order_for(parts=parts, seed=assignment_seed(item_id=item.pk, worker_id=worker.pk),
                                            keep_import_order=False)


@pytest.mark.parametrize("state", [Standing.BLOCKED, Standing.SCREENED_OUT])
def test_a_worker_stopped_in_the_project_gets_nothing_and_their_open_item_goes_back(state):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    held = assignment_next(project=project, worker=worker).assignment
    standing_set(project=project, worker=worker, state=state, reason="test")
    held.refresh_from_db()
    assert held.status == Assignment.Status.RETURNED and Item.objects.get(pk=held.item_id).n_active == 0
    assert assignment_next(project=project, worker=worker).reason == state
    # Someone else gets the item.
    assert assignment_next(project=project, worker=UserFactory()).assignment.item_id == held.item_id


def test_the_qualification_opens_on_the_first_request_and_serves_a_drawn_training_item(monkeypatch):
    # The draw picks among the training items the worker never had, in position order: 0 is the first.
    monkeypatch.setattr(serving, "place", lambda: 0.0)
    project = ProjectFactory()
    quality_policy(project, qualification_items=2, gold_rate=0.5)
    training = [check_item(project, kind=ItemKind.TRAINING) for _ in range(3)]
    ItemFactory(project=project)
    worker = UserFactory()
    first = assignment_next(project=project, worker=worker)
    assert first.assignment.purpose == Purpose.TRAINING and first.assignment.item_id == training[0].pk
    assert first.round.kind == TrainingRound.Kind.QUALIFICATION and first.round.number == 1 and first.round.items == 2
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.QUALIFYING
    # Resuming keeps the round.
    assert assignment_next(project=project, worker=worker).round.pk == first.round.pk


def test_with_fewer_training_items_than_k_the_round_holds_what_remains_and_none_left_is_said():
    project = ProjectFactory()
    quality_policy(project, qualification_items=5)
    check_item(project, kind=ItemKind.TRAINING)
    ItemFactory(project=project)
    worker = UserFactory()
    assert assignment_next(project=project, worker=worker).round.items == 1
    empty = ProjectFactory()
    quality_policy(empty, qualification_items=3)
    ItemFactory(project=empty)
    assert assignment_next(project=empty, worker=worker).reason == "no_training"


def test_dropping_the_qualification_lets_qualifying_workers_work():
    project = ProjectFactory()
    quality_policy(project, qualification_items=2)
    real = ItemFactory(project=project)
    worker = UserFactory()
    assert assignment_next(project=project, worker=worker).reason == "no_training"
    quality_policy(project, qualification_items=0)
    assert assignment_next(project=project, worker=worker).assignment.item_id == real.pk
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.ACTIVE


def test_training_answers_do_not_count_toward_the_quota():
    project = ProjectFactory(max_items_per_worker=1)
    quality_policy(project, qualification_items=1)
    check_item(project, kind=ItemKind.TRAINING)
    real = ItemFactory(project=project)
    worker = UserFactory()
    got, last = answer_all(project, worker)
    assert [a.purpose for a in got] == [Purpose.TRAINING, Purpose.TASK] and got[1].item_id == real.pk
    assert last.reason == "quota"


def test_one_read_of_standing_and_policy_per_request():
    """A project without gold or qualification: the quality read is one query per request."""
    project = ProjectFactory()
    ItemFactory(project=project)
    ItemFactory(project=project)
    worker = UserFactory()
    annotation_submit(assignment=assignment_next(project=project, worker=worker).assignment, worker=worker,
                      data=answer())
    with CaptureQueriesContext(connection) as seen:
        assignment_next(project=project, worker=worker)
    quality = [q["sql"] for q in seen.captured_queries if "workerstanding" in q["sql"] or "qualitypolicy" in q["sql"]
               or "traininground" in q["sql"]]
    assert len(quality) == 1, quality


def _grouped(project, topic: str, position: int, *, gold: bool = False) -> Item:
    payload = {"topic": topic, "prompt": "P?", "stance": "yes", "arg1": {"id": f"a{position}", "text": "One."},
               "arg2": {"id": f"b{position}", "text": "Two."}}
    fields = {"payload": payload, "position": position, "group": topic}
    return check_item(project, **fields) if gold else ItemFactory(project=project, **fields)


def test_a_gold_question_comes_from_the_group_of_the_real_item_it_stands_in_for(always_gold):
    project = ProjectFactory(redundancy=1)
    quality_policy(project, gold_rate=0.5)
    _grouped(project, "uniforms", 1)
    _grouped(project, "uniforms", 2)
    _grouped(project, "wind", 3)
    wind_gold = _grouped(project, "wind", 4, gold=True)
    far, near = _grouped(project, "uniforms", 20, gold=True), _grouped(project, "uniforms", 9, gold=True)
    worker = UserFactory()
    served = []
    for _ in range(3):
        a = assignment_next(project=project, worker=worker).assignment
        served.append(a.item_id)
        annotation_submit(assignment=a, worker=worker, data=answer())
    # The real item due is at position 1 (uniforms): the nearest uniforms gold question, then
    # the next, not the wind one, however near; the real item waits in the pool. With no
    # uniforms gold question left, the nearest of another group stands in, and is counted.
    assert served == [near.pk, far.pk, wind_gold.pk]
    assert Item.objects.get(pk=wind_gold.pk).off_group_serves == 1
    assert Item.objects.get(pk=near.pk).off_group_serves == 0


def test_in_sequential_order_a_gold_question_is_the_next_of_its_group_and_real_items_go_on_after_it(monkeypatch):
    """docs/quality/gold-questions.md: the gold question a worker would meet next walking on from
    their previous item, and after it the real items after its place, so the worker neither
    jumps to the real item's neighbour nor steps back to the real item it stood in for."""
    project = ProjectFactory(redundancy=1)
    quality_policy(project, gold_rate=0.5)
    for position in (1, 5, 10):
        _grouped(project, "uniforms", position)
    for position in (2, 6):
        _grouped(project, "uniforms", position, gold=True)
    draws = iter([0.9, 0.0, 0.0, 0.9, 0.9])
    monkeypatch.setattr(serving, "draw", lambda: next(draws))
    worker = UserFactory()
    served = []
    for _ in range(5):
        a = assignment_next(project=project, worker=worker).assignment
        served.append((a.item.position, a.purpose))
        annotation_submit(assignment=a, worker=worker, data=answer())
    # Gold at 2 for the real item at 5 (not 6, the nearest to it); the real item at 5 is still
    # due, so the next gold question is the one after 2; after it, the real item at 10, and only
    # then the one at 5 that was passed.
    assert served == [(1, Purpose.TASK), (2, Purpose.GOLD), (6, Purpose.GOLD), (10, Purpose.TASK), (5, Purpose.TASK)]
