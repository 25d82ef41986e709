"""A project that prefers adjudicated answers: the gold pipeline takes a decided pair's label
instead of MACE's before the weights and the transitivity filter; without the preference the
decision changes nothing there."""

import pytest

from analysis.item_frames import item_frame
from analysis.reports import decided_labels
from analysis.services import analysis_run_create
from quality.models import QualityPolicy
from quality.services.adjudication import item_adjudicate
from task_types.pairwise.selectors import run_pairs
from task_types.pairwise.tests.test_report import FAST, build_project

pytestmark = pytest.mark.django_db


def gold_of(project, capture) -> tuple[dict, dict]:
    with capture(execute=True):
        run = analysis_run_create(project=project, kind="pairwise_gold", params=FAST)
    run.refresh_from_db()
    assert run.status == "done", run.error
    return {p["pair"]: p for p in run_pairs(run=run)}, run.result["counts"]


def test_the_gold_pipeline_takes_the_decided_label_when_the_project_prefers_it(django_capture_on_commit_callbacks):
    project, _ = build_project()
    before, counts = gold_of(project, django_capture_on_commit_callbacks)
    pair = next(p for p in before.values() if p["gold"] == "a1")
    item = project.items.get(external_id=pair["pair"])
    item_adjudicate(item=item, answer={"label": "a2"}, why="The crowd got this one wrong.", actor=None)
    # Not preferred: the decision is exported as its own column, the pipeline keeps MACE's label.
    assert "adjudicated" not in item_frame(project=project).columns
    unchanged, counts = gold_of(project, django_capture_on_commit_callbacks)
    assert unchanged[pair["pair"]]["gold"] == "a1" and counts["adjudicated"] == 0
    QualityPolicy.objects.create(project=project, prefer_adjudicated=True)
    items = item_frame(project=project)
    assert decided_labels(items, "label").to_dict() == {pair["pair"]: "a2"}
    after, counts = gold_of(project, django_capture_on_commit_callbacks)
    assert after[pair["pair"]]["gold"] == "a2" and after[pair["pair"]]["all"] and counts["adjudicated"] == 1
    others = [p for p in before if p != pair["pair"]]
    assert [after[p]["gold"] for p in others] == [before[p]["gold"] for p in others]
