"""Training rounds that test the worker: items drawn per worker from the pool, so that a second
account given a first one's feedback meets other items; skipped, flagged and expired items
counted as wrong; a late answer to an expired training item refused; the feedback a project
chooses."""

import random
from datetime import timedelta
from itertools import combinations

import pytest
from django.utils import timezone

from annotation.models import Annotation, ItemKind, Purpose, Standing
from annotation.services import WorkflowError, annotation_submit, assignment_next, assignment_return
from annotation.services.engine import leases_expire
from bench.training_copy import copy_pass_chance
from quality.models import CheckResult, QualityPolicy, TrainingRound, WorkerStanding
from quality.services import check_serving as serving
from quality.services.flags import item_flag
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db
LABELS = ("a1", "a2", "equal")


def pool_project(*, pool=24, k=5, attempts=1, pass_mark=0.8, feedback="after_each"):
    """A project with a qualification of ``k`` items drawn from ``pool`` training items whose
    known answers vary (so that an answer cannot be guessed from the others)."""
    project = ProjectFactory()
    quality_policy(project, qualification_items=k, qualification_attempts=attempts, qualification_pass=pass_mark,
                   training_feedback=feedback)
    for n in range(pool):
        check_item(project, kind=ItemKind.TRAINING, answer={"label": LABELS[n % 3]})
    ItemFactory(project=project)
    return project


def known(assignment):
    return assignment.item.gold_answer.answer["label"]


def take(project, worker, choose):
    """Answer the worker's round, item by item, with ``choose(assignment)``; returns what each
    answer's feedback showed (the expected label, when shown) by item id."""
    shown = {}
    while True:
        result = assignment_next(project=project, worker=worker)
        if result.assignment is None or result.assignment.purpose != Purpose.TRAINING:
            return shown
        sent = annotation_submit(assignment=result.assignment, worker=worker, data=answer(label=choose(result.assignment)))
        if sent.feedback is not None and sent.feedback.expected_shown:
            shown[result.assignment.item_id] = sent.feedback.result.expected["label"]


def round_items(project, worker):
    return set(project.assignments.filter(worker=worker, purpose=Purpose.TRAINING).values_list("item_id", flat=True))


def test_rounds_are_drawn_per_worker_so_first_rounds_share_few_items(monkeypatch):
    monkeypatch.setattr(serving, "place", random.Random(34).random)
    project = pool_project(pool=24, k=5)
    workers = [UserFactory() for _ in range(8)]
    for w in workers:
        take(project, w, known)
    rounds = [round_items(project, w) for w in workers]
    assert all(len(r) == 5 for r in rounds)
    shared = [len(a & b) for a, b in combinations(rounds, 2)]
    # k·k/n = 25/24 ≈ 1.04 items on average (not all 5, as one fixed order gave everyone).
    assert sum(shared) / len(shared) < 2 and max(shared) < 5
    assert len(set().union(*rounds)) > 15


def test_a_second_account_given_the_first_ones_expected_answers_fails_on_other_items(monkeypatch):
    monkeypatch.setattr(serving, "place", random.Random(7).random)
    project = pool_project(pool=24, k=5, attempts=1, pass_mark=0.8)
    first, second = UserFactory(), UserFactory()
    # The first account answers everything wrong, is screened out, and hands on what it was shown.
    handed = take(project, first, lambda a: next(label for label in LABELS if label != known(a)))
    assert len(handed) == 5
    assert WorkerStanding.objects.get(project=project, worker=first).state == Standing.SCREENED_OUT
    guess = random.Random(1)
    take(project, second, lambda a: handed.get(a.item_id) or guess.choice(LABELS))
    overlap = round_items(project, first) & round_items(project, second)
    assert len(overlap) <= 2
    done = TrainingRound.objects.get(project=project, worker=second)
    assert done.passed is False and done.right < 4
    assert WorkerStanding.objects.get(project=project, worker=second).state == Standing.SCREENED_OUT
    # Over all draws (bench.training_copy): 14.7% for a copier guessing the rest among 3 labels,
    # where one fixed order let it pass every time.
    chance = copy_pass_chance(pool=24, k=5, known=5, pass_mark=0.8, guess=1 / 3, attempts=1)
    assert 0.14 < chance < 0.15
    assert copy_pass_chance(pool=5, k=5, known=5, pass_mark=0.8, guess=1 / 3, attempts=1) == 1.0


def test_a_further_round_draws_only_items_the_worker_has_not_had(monkeypatch):
    monkeypatch.setattr(serving, "place", random.Random(3).random)
    project = pool_project(pool=12, k=5, attempts=2)
    worker = UserFactory()
    take(project, worker, lambda a: "a2" if known(a) != "a2" else "a1")
    first = round_items(project, worker)
    from quality.services.training import training_round_start
    training_round_start(project=project, worker=worker, kind=TrainingRound.Kind.QUALIFICATION)
    take(project, worker, known)
    assert len(round_items(project, worker) - first) == 5


def _open_training(project, worker):
    result = assignment_next(project=project, worker=worker)
    assert result.assignment.purpose == Purpose.TRAINING
    return result.assignment


@pytest.mark.parametrize("how", ["skipped", "flagged", "expired", "expired_on_next_request"])
def test_a_skipped_flagged_or_expired_training_item_counts_as_answered_and_wrong(how, monkeypatch):
    monkeypatch.setattr(serving, "place", random.Random(5).random)
    project = pool_project(pool=6, k=2, pass_mark=0.5)
    worker = UserFactory()
    a = _open_training(project, worker)
    if how == "skipped":
        assignment_return(assignment=a, worker=worker)
    elif how == "flagged":
        item_flag(assignment=a, worker=worker, problem="other", reason="The two texts are the same.")
    elif how == "expired":
        assert leases_expire(project=project, now=a.expires_at + timedelta(seconds=1)) == 1
    else:
        # The worker's own lease ran out; their next request settles it before serving another.
        assignment_next(project=project, worker=worker, now=a.expires_at + timedelta(seconds=1))
    open_round = TrainingRound.objects.get(project=project, worker=worker)
    assert (open_round.answered, open_round.right, open_round.finished_at) == (1, 0, None)
    result = CheckResult.objects.get(assignment=a)
    assert (result.right, result.score, result.round_id) == (False, 0.0, open_round.pk)
    assert result.method == ("expired" if how.startswith("expired") else how)
    # A right answer to the second item makes 1 of 2: the round closes on its planned size.
    b = _open_training(project, worker) if how != "expired_on_next_request" else (
        project.assignments.get(worker=worker, status="assigned"))
    annotation_submit(assignment=b, worker=worker, data=answer(label=known(b)))
    open_round.refresh_from_db()
    assert (open_round.answered, open_round.right, open_round.passed) == (2, 1, True)


def test_skipping_every_item_of_a_round_fails_it_without_an_answer():
    project = pool_project(pool=6, k=3, pass_mark=0.5)
    worker = UserFactory()
    for _ in range(3):
        assignment_return(assignment=_open_training(project, worker), worker=worker)
    done = TrainingRound.objects.get(project=project, worker=worker)
    assert (done.answered, done.right, done.passed) == (3, 0, False) and done.finished_at is not None
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.SCREENED_OUT
    # Only three items were ever handed out: skipping does not buy more.
    assert project.assignments.filter(worker=worker).count() == 3


def test_skipping_a_real_item_counts_nothing():
    project = ProjectFactory()
    worker = UserFactory()
    ItemFactory(project=project)
    a = assignment_next(project=project, worker=worker).assignment
    assignment_return(assignment=a, worker=worker)
    assert not CheckResult.objects.exists()


@pytest.mark.parametrize("swept", [True, False])
def test_a_late_answer_to_a_training_item_is_refused_and_nothing_is_stored(swept):
    project = pool_project(pool=4, k=2)
    worker = UserFactory()
    a = _open_training(project, worker)
    late = a.expires_at + timedelta(seconds=5)
    if swept:
        leases_expire(project=project, now=late)
    with pytest.raises(WorkflowError, match="time for this training item ran out"):
        annotation_submit(assignment=a, worker=worker, data=answer(label=known(a)), now=late)
    assert not Annotation.objects.filter(assignment=a).exists()
    assert not CheckResult.objects.filter(assignment=a, method="exact").exists()
    r = TrainingRound.objects.get(project=project, worker=worker)
    assert r.right == 0 and r.answered == (1 if swept else 0)


def test_the_api_refuses_a_late_training_answer_with_a_conflict():
    from rest_framework.test import APIClient

    project = pool_project(pool=4, k=2)
    worker = UserFactory()
    a = _open_training(project, worker)
    leases_expire(project=project, now=timezone.now() + timedelta(minutes=project.lease_minutes + 1))
    c = APIClient()
    c.force_authenticate(worker)
    sent = c.post(f"/api/assignments/{a.pk}/submit/", answer(label=known(a)), format="json")
    assert sent.status_code == 409 and "ran out" in sent.json()["detail"]
    assert not Annotation.objects.filter(assignment=a).exists()


@pytest.mark.parametrize("how", ["after_each", "right_wrong", "after_round"])
def test_training_feedback_shows_what_the_project_chose(how):
    project = pool_project(pool=6, k=2, pass_mark=0.5, feedback=how)
    worker = UserFactory()
    outcomes = []
    for pick in (known, lambda a: "a2" if known(a) != "a2" else "a1"):
        a = _open_training(project, worker)
        outcomes.append(annotation_submit(assignment=a, worker=worker, data=answer(label=pick(a))))
    shown = [o.feedback for o in outcomes]
    if how == "after_round":
        # Nothing after the first item; after the last, each item right or not, no expected answer.
        assert shown[0] is None
        assert shown[1].round_results == (True, False) and not shown[1].expected_shown
        assert shown[1].explanation == ""
    else:
        assert [s.result.right for s in shown] == [True, False]
        assert all(s.expected_shown is (how == "after_each") for s in shown)
        assert all(bool(s.explanation) is (how == "after_each") for s in shown)


def test_a_new_policy_shows_only_right_or_wrong():
    assert QualityPolicy(project=ProjectFactory()).training_feedback == "right_wrong"


@pytest.mark.parametrize("how", ["right_wrong", "after_round"])
def test_the_api_and_the_page_leave_the_expected_answer_out_unless_the_project_shows_it(how, client):
    from django.urls import reverse
    from rest_framework.test import APIClient

    project = pool_project(pool=6, k=2, pass_mark=0.5, feedback=how)
    worker = UserFactory()
    c = APIClient()
    c.force_authenticate(worker)
    bodies = []
    for _ in range(2):
        nxt = c.post(reverse("api-next", args=[project.slug])).json()
        served = project.assignments.get(pk=nxt["assignment"]["id"])
        bodies.append(c.post(reverse("api-submit", args=[served.pk]), answer(label=known(served)), format="json").json())
    if how == "right_wrong":
        assert all(b["feedback"]["right"] is True for b in bodies)
        assert not {"expected", "expected_text", "why"} & set(bodies[0]["feedback"])
    else:
        assert "feedback" not in bodies[0]
        assert bodies[1]["feedback"] == {"round": {"right": 2, "items": 2, "results": [True, True]}}
    # The page: the same, with the item answered above it.
    other = UserFactory()
    client.force_login(other)
    for n in range(2):
        a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
        body = client.post(reverse("submit", args=[project.slug, a.pk]), answer(label=known(a)),
                           HTTP_HX_REQUEST="true").content.decode()
        assert 'data-testid="feedback-expected"' not in body and 'data-testid="feedback-why"' not in body
        if how == "right_wrong":
            assert "Right." in body and 'data-testid="answered-item"' in body
        elif n == 1:
            assert "Round finished: 2 of 2 right." in body and 'data-testid="feedback-round"' in body
        else:
            assert 'data-testid="feedback"' not in body
        client.get(reverse("annotate", args=[project.slug]))  # Continue
