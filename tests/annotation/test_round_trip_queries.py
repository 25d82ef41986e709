"""The annotator's round trip, counted: the statements and task-type look-ups of one ``next``
and one submit through the API, with quality control off and on (gold questions, the
gold-accuracy rule and the per-answer rules, as ``bench/load.py prepare`` sets them), for a
project with no panel and for one on Prolific. A statement more is a regression to explain."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

import annotation.task_types as task_types
from annotation.models import ItemKind, Project
from annotation.rule_defaults import DEFAULTS
from quality.models import GoldAnswer, QualityRule
from quality.services.settings import quality_policy_update
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

# Statements of the third next and submit of a worker (the first ones make their profile and
# standing), as measured: token, project, the worker's profile locked with whether they have an
# open assignment, their standing with the policy, the pick, the slot, the assignment, and the
# savepoint around them; with gold on, the gold question's place and its look-ups. The submit: token, the locked
# read, the status, the answer, the savepoint; with the per-answer rules, their one statement
# after the commit.
NEXT = {"off": 9, "on": 12}
SUBMIT = {"off": 6, "on": 7}


class CountingRegistry(dict):
    """The task-type registry, counting its look-ups."""

    looked_up = 0

    def __getitem__(self, key):
        self.looked_up += 1
        return super().__getitem__(key)


def with_checks(project) -> None:
    gold = ItemFactory.create_batch(2, project=project, kind=ItemKind.GOLD)
    for item in gold:
        GoldAnswer.objects.create(item=item, answer={"label": "a1"}, accept=[{"label": "equal"}], explanation="x")
    quality_policy_update(project=project, values={"gold_rate": 0.05, "gold_feedback": True,
                                                   "review_pauses_work": False}, actor=None)
    QualityRule.objects.create(project=project, kind=QualityRule.Kind.GOLD_ACCURACY, action=QualityRule.Action.REVIEW,
                               threshold=0.9, min_answers=3)
    for kind in (QualityRule.Kind.TOO_FAST, QualityRule.Kind.POSITION_BIAS, QualityRule.Kind.AUTOMATION):
        QualityRule.objects.create(project=project, kind=kind, action=QualityRule.Action.REVIEW,
                                   threshold=DEFAULTS[kind]["threshold"], min_answers=DEFAULTS[kind]["min_answers"])


def round_trip(*, checks: bool, panel: str, monkeypatch, on_commit) -> dict[str, tuple[int, int]]:
    """(statements, task-type look-ups) of a worker's third next and submit, the submit's
    after-commit work included."""
    project = ProjectFactory(open_to_all=True, redundancy=2)
    ItemFactory.create_batch(6, project=project)
    if checks:
        with_checks(project)
    Project.objects.filter(pk=project.pk).update(panel=panel)
    worker = UserFactory(role="annotator")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=worker).key}")
    registry = CountingRegistry(task_types._REGISTRY)
    monkeypatch.setattr(task_types, "_REGISTRY", registry)
    counts = {}
    for _ in range(3):
        registry.looked_up = 0
        with CaptureQueriesContext(connection) as nxt:
            got = client.post(f"/api/projects/{project.slug}/assignments/next/").json()
        assert got["assignment"] is not None, got
        counts["next"] = (len(nxt.captured_queries), registry.looked_up)
        registry.looked_up = 0
        with CaptureQueriesContext(connection) as sub, on_commit(execute=True):
            done = client.post(f"/api/assignments/{got['assignment']['id']}/submit/", answer(), format="json")
        assert done.status_code == 201, done.json()
        counts["submit"] = (len(sub.captured_queries), registry.looked_up)
    return counts


@pytest.mark.parametrize("checks", ["off", "on"])
def test_a_round_trip_without_a_panel_reads_what_it_needs_once(checks, monkeypatch,
                                                                 django_capture_on_commit_callbacks):
    counts = round_trip(checks=checks == "on", panel="", monkeypatch=monkeypatch,
                        on_commit=django_capture_on_commit_callbacks)
    # The task type is looked up once per request; no provider is asked (no panel).
    assert counts == {"next": (NEXT[checks], 1), "submit": (SUBMIT[checks], 1)}


def test_a_project_on_prolific_asks_it_once_per_next_and_never_on_submit(monkeypatch,
                                                                         django_capture_on_commit_callbacks):
    counts = round_trip(checks=False, panel="prolific", monkeypatch=monkeypatch,
                        on_commit=django_capture_on_commit_callbacks)
    # Whether the worker left the study: one statement more on next.
    assert counts == {"next": (NEXT["off"] + 1, 1), "submit": (SUBMIT["off"], 1)}
