"""The adjudication queue: its three criteria, each row's reasons, adjudicated items apart."""

import pytest
from django.utils import timezone

from annotation.models import ItemKind
from quality.models import Adjudication
from quality.selectors import adjudication as module
from quality.selectors.adjudication import (
    MacePosteriors,
    adjudicated_answers,
    adjudicated_rows,
    adjudication_queue,
    contested_items,
    item_contests,
)
from tests.annotation.quality_helpers import answered, gold_item, split_item
from tests.factories import ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def reasons_of(project, **options):
    contests, _ = contested_items(project=project, **options)
    return {item_id: [c.reason for c in found] for item_id, found in contests.items()}


def test_split_votes_without_a_strict_majority_are_contested():
    project = ProjectFactory()
    tie = split_item(project, ("a1", "a2"))
    three_ways = split_item(project, ("a1", "a2", "equal"))
    majority = split_item(project, ("a1", "a1", "a2"))
    lonely = split_item(project, ("a1",))
    found = reasons_of(project)
    assert found == {tie.pk: ["split"], three_ways.pk: ["split"]}
    assert majority.pk not in found and lonely.pk not in found
    # A higher share on the page takes 2 of 3 as split too.
    assert majority.pk in reasons_of(project, split_share=0.7)
    text = contested_items(project=project)[0][tie.pk][0].text
    assert "1 of 2" in text


def test_split_compares_the_gold_fields_only_and_counts_task_answers_of_real_items():
    project = ProjectFactory()
    item = ItemFactory(project=project)
    a = answered(item, "a1")
    a.answer = {"label": "a1", "standpoint": "same"}  # another standpoint: the same gold field
    a.save()
    answered(item, "a1")
    assert reasons_of(project) == {}
    # Gold answers to a real item (promoted later) and withdrawn items do not count.
    gold_answers = ItemFactory(project=project)
    answered(gold_answers, "a1")
    answered(gold_answers, "a2", purpose="gold")
    withdrawn = split_item(project)
    withdrawn.kind = ItemKind.WITHDRAWN
    withdrawn.save()
    assert reasons_of(project) == {}


def test_low_mace_posterior_comes_from_the_last_agreement_run(monkeypatch):
    project = ProjectFactory()
    low, high = ItemFactory(project=project), ItemFactory(project=project)
    posteriors = MacePosteriors(run_id=7, below=0.9, items={low.external_id: 0.41, high.external_id: 0.85})
    monkeypatch.setattr(module, "agreement_posteriors", lambda *, project: posteriors if project.pk == project_pk else None)
    project_pk = project.pk
    assert reasons_of(project) == {low.pk: ["low_posterior"]}
    assert reasons_of(project, posterior_below=0.9) == {low.pk: ["low_posterior"], high.pk: ["low_posterior"]}
    assert "0.41" in item_contests(project=project, item=low)[0].text and "#7" in item_contests(project=project, item=low)[0].text
    assert reasons_of(ProjectFactory()) == {}


def test_the_analysis_app_gives_the_last_agreement_runs_posteriors():
    from analysis.models import AnalysisRun

    project = ProjectFactory()
    item = ItemFactory(project=project)
    assert module.mace_posteriors(project=project) is None
    run = AnalysisRun.objects.create(project=project, kind="agreement", status="done", finished_at=timezone.now(),
                                     result={"posterior": {"below": 0.9, "items": {item.external_id: 0.3}}})
    found = module.mace_posteriors(project=project)
    assert found is not None and found.run_id == run.pk and found.items == {item.external_id: 0.3}
    assert reasons_of(project) == {item.pk: ["low_posterior"]}


def test_gold_questions_mostly_answered_wrong_are_contested():
    project = ProjectFactory()
    disputed = gold_item(project, right=1, wrong=2)
    fine = gold_item(project, right=2, wrong=1)
    too_few = gold_item(project, right=0, wrong=2)
    found = reasons_of(project)
    assert found == {disputed.pk: ["gold_disagreement"]}
    assert fine.pk not in found and too_few.pk not in found
    assert "right in 1 of 3" in item_contests(project=project, item=disputed)[0].text


def test_queue_pages_filters_by_reason_and_lists_adjudicated_items_apart(monkeypatch):
    project = ProjectFactory()
    split = [split_item(project) for _ in range(3)]
    disputed = gold_item(project, right=0, wrong=3)
    queue = adjudication_queue(project=project, per_page=2)
    assert queue.page.paginator.count == 4 and len(queue.rows) == 2
    assert queue.counts == {"split": 3, "low_posterior": 0, "gold_disagreement": 1}
    only_gold = adjudication_queue(project=project, reason="gold_disagreement")
    assert [r.item_id for r in only_gold.rows] == [disputed.pk]
    assert only_gold.rows[0].reasons == ["gold_disagreement"]
    Adjudication.objects.create(project=project, item=split[0], answer={"label": "a1"}, why="clear", contested=["split"],
                                decided_at=timezone.now())
    queue = adjudication_queue(project=project)
    assert split[0].pk not in [r.item_id for r in queue.rows] and queue.counts["split"] == 2
    _, done = adjudicated_rows(project=project)
    assert [r.item_id for r in done] == [split[0].pk] and done[0].reasons == ["split"] and "a1" in done[0].decided
    assert adjudicated_answers(project=project) == {split[0].pk: '{"label":"a1"}'}
