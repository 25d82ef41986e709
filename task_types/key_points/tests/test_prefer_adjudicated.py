"""labels.csv of a key-point project that prefers adjudicated answers: an adjudicated argument's
decision replaces the labels its marks' shares gave (an ambiguous pair gets a label)."""

import pytest

from quality.models import QualityPolicy
from quality.services.adjudication import item_adjudicate
from task_types.key_points.tests.test_report import annotated, run_report

pytestmark = pytest.mark.django_db


def labels(run):
    return sorted((r["arg_id"], r["key_point_id"], r["label"]) for r in run.result["labels"])


def test_the_decision_replaces_the_shares_labels_only_when_preferred():
    project = annotated()
    # a1: k1 by 3 of 3 (1), k2 by 1 of 3 (ambiguous). The decision: k2 only.
    item_adjudicate(item=project.items.get(external_id="a1"), answer={"key_points": ["k2"]}, why="k1 is a misreading",
                    actor=None)
    assert labels(run_report(project)) == [("a1", "k1", 1), ("a2", "k3", 1), ("a3", "k1", 0), ("a3", "k2", 0)]
    QualityPolicy.objects.create(project=project, prefer_adjudicated=True)
    assert labels(run_report(project)) == [("a1", "k1", 0), ("a1", "k2", 1), ("a2", "k3", 1), ("a3", "k1", 0),
                                           ("a3", "k2", 0)]
