"""Every type's known answers, sent as a worker's answers through the submit service, score 1
under both set overlaps; an exclusive None among them (stored as no option and
``"none": true``) included."""

import pytest

from annotation.models import ItemKind, Purpose
from annotation.services import annotation_submit
from annotation.task_types import task_types
from annotation.task_types.answers import NONE
from annotation.task_types.gold import CleanGold, GoldPolicy, score_answer
from tests.factories import AssignmentFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db

CASES = [(t.slug, n) for t in task_types() for n in range(len(t.example_gold()))]


def _type(slug):
    return next(t for t in task_types() if t.slug == slug)


def test_every_type_with_gold_fields_declares_example_gold_answers_and_a_none_where_it_has_one():
    for task in task_types():
        if not task.gold_fields:
            continue
        golds = task.example_gold()
        assert golds, task.slug
        assert all(set(g) == set(task.gold_fields) for g in golds), task.slug
        set_fields = [f.name for f in task.answer_fields if f.name in task.gold_fields and f.kind == "choices"]
        # A set answer of these types takes an exclusive None (``choices_problem``): its gold form is listed.
        for name in set_fields:
            assert {name: [NONE]} in golds, task.slug


@pytest.mark.parametrize("overlap", ["jaccard", "masi"])
@pytest.mark.parametrize(("slug", "n"), CASES)
def test_a_known_answer_given_as_the_answer_scores_one(slug, n, overlap):
    task = _type(slug)
    example = task.example()
    gold = task.example_gold()[n]
    project = ProjectFactory(task_type=slug, options=task.clean_options(example.options))
    quality_policy(project, set_overlap=overlap, set_pass=0.5)
    payload = task.clean_item(example.records[0]).payload
    item = check_item(project, kind=ItemKind.GOLD, answer=gold, payload=payload)
    worker = UserFactory()
    assignment = AssignmentFactory(item=item, worker=worker, purpose=Purpose.GOLD)
    sent = annotation_submit(assignment=assignment, worker=worker, data={**example.answer, **gold})
    assert sent.created and sent.check is not None
    assert (sent.check.result.score, sent.check.result.right) == (1.0, True), (slug, gold, sent.annotation.answer)


SET_TYPES = [t.slug for t in task_types()
             if any(f.kind == "choices" and f.name in t.gold_fields for f in t.answer_fields)]


@pytest.mark.parametrize("overlap", ["jaccard", "masi"])
@pytest.mark.parametrize("slug", SET_TYPES)
def test_none_against_options_and_options_against_none_score_zero(slug, overlap):
    task = _type(slug)
    example = task.example()
    name = next(f for f in task.gold_fields)
    options = [g for g in task.example_gold() if g[name] != [NONE]]
    project = ProjectFactory(task_type=slug, options=task.clean_options(example.options))
    quality_policy(project, set_overlap=overlap)
    payload = task.clean_item(example.records[0]).payload
    for gold, given in [(options[0], {name: [NONE]}), ({name: [NONE]}, options[0])]:
        item = check_item(project, kind=ItemKind.GOLD, answer=gold, payload=payload)
        worker = UserFactory()
        assignment = AssignmentFactory(item=item, worker=worker, purpose=Purpose.GOLD)
        sent = annotation_submit(assignment=assignment, worker=worker, data={**example.answer, **given})
        assert (sent.check.result.score, sent.check.result.right) == (0.0, False), (gold, given)


@pytest.mark.parametrize(("how", "expected"), [("jaccard", 0.5), ("masi", round(0.5 * 2 / 3, 6))])
def test_a_partial_overlap_scores_as_before(how, expected):
    kinds = {"titles": "choices"}
    stored = {"titles": ["t1"], "none": False}
    scored = score_answer(stored, CleanGold(answer={"titles": ["t1", "t3"]}), kinds=kinds,
                          policy=GoldPolicy(set_overlap=how))
    assert scored.score == expected


def test_a_stored_none_is_read_as_the_none_option_and_an_empty_set_without_it_is_not():
    kinds = {"key_points": "choices"}
    gold = CleanGold(answer={"key_points": [NONE]})
    assert score_answer({"key_points": [], "none": True}, gold, kinds=kinds, policy=GoldPolicy()).right
    assert not score_answer({"key_points": [], "none": False}, gold, kinds=kinds, policy=GoldPolicy()).right
    # An accepted alternative of None is matched the same way.
    accepting = CleanGold(answer={"key_points": ["kp1"]}, accept=[{"key_points": [NONE]}])
    assert score_answer({"key_points": [], "none": True}, accepting, kinds=kinds, policy=GoldPolicy()).score == 1.0
