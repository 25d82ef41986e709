"""The per-pair file of a comprehension project that prefers adjudicated answers: an adjudicated
speech's decision is the majority label of its titles; the votes stay."""

import pytest

from quality.models import QualityPolicy
from quality.services.adjudication import item_adjudicate
from task_types.comprehension.tests.test_report import answer_all, make_project, run_report
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_decision_is_the_majority_only_when_preferred():
    project = make_project()
    answer_all(project, UserFactory(), {"s1": ["a"], "s2": ["c"], "s3": []})
    answer_all(project, UserFactory(), {"s1": ["a"], "s2": ["c", "d"], "s3": []})
    answer_all(project, UserFactory(), {"s1": ["a"], "s2": [], "s3": []})
    item_adjudicate(item=project.items.get(external_id="s2"), answer={"titles": ["d"]}, why="d is argued", actor=None)

    def majority():
        return [(r["title_id"], r["votes"], r["majority"]) for r in run_report(project).result["pairs"]]

    assert majority() == [("a", 3, 1), ("b", 0, 0), ("c", 2, 1), ("d", 1, 0), ("e", 0, 0), ("f", 0, 0)]
    QualityPolicy.objects.create(project=project, prefer_adjudicated=True)
    assert majority() == [("a", 3, 1), ("b", 0, 0), ("c", 2, 0), ("d", 1, 1), ("e", 0, 0), ("f", 0, 0)]
