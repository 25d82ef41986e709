"""The key-point report: labels from the annotators' marks with the project's thresholds (or the
imported gold), the summary per topic and stance, and its page, figure and files."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.utils import timezone

from analysis.services import analysis_run_create, analysis_run_execute
from annotation.models import Assignment
from annotation.services import annotation_submit
from task_types.key_points.corpus import read_corpus
from task_types.key_points.services import corpus_import
from task_types.key_points.tests.test_corpus import ARGUMENTS, KEY_POINTS, LABELS
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def answer(project, worker, marks):
    now = timezone.now()
    for item in project.items.order_by("position"):
        a = Assignment.objects.create(item=item, project=project, worker=worker, assigned_at=now,
                                      expires_at=now + timezone.timedelta(minutes=30))
        item.n_active += 1
        item.save(update_fields=["n_active"])
        annotation_submit(assignment=a, worker=worker, data={"key_points": marks[item.external_id]})


def annotated(options=None):
    project = ProjectFactory(task_type="key_points", options=options or {})
    corpus_import(project=project, corpus=read_corpus(ARGUMENTS, KEY_POINTS, LABELS))
    # a1 (pro): k1 marked by 3 of 3, k2 by 1 of 3 (0.33: ambiguous); a2 (con): k3 by 2 of 3 (0.67: 1);
    # a3 (pro): None by all: k1 and k2 are 0.
    answer(project, UserFactory(username="w1"), {"a1": ["k1", "k2"], "a2": ["k3"], "a3": ["none"]})
    answer(project, UserFactory(username="w2"), {"a1": ["k1"], "a2": ["k3"], "a3": ["none"]})
    answer(project, UserFactory(username="w3"), {"a1": ["k1"], "a2": ["none"], "a3": ["none"]})
    return project


def run_report(project, **params):
    run = analysis_run_execute(run_id=analysis_run_create(project=project, kind="key_points", params=params,
                                                          enqueue=False).pk)
    assert run.status == "done", run.error
    return run


def test_labels_and_summary_by_hand(client):
    project = annotated()
    run = run_report(project)
    result = run.result
    assert sorted((r["arg_id"], r["key_point_id"], r["label"]) for r in result["labels"]) == [
        ("a1", "k1", 1), ("a2", "k3", 1), ("a3", "k1", 0), ("a3", "k2", 0)]
    assert (result["n_positive"], result["n_negative"], result["n_ambiguous"]) == (2, 2, 1)
    pro, con = result["groups"]
    assert (pro["stance"], con["stance"]) == (1, -1)
    assert [(k["key_point_id"], k["matched"]) for k in pro["key_points"]] == [("k1", 1), ("k2", 0)]
    # Of the two pro arguments with labels, a3 matches no key point.
    assert pro["n_labelled"] == 2 and pro["unmatched_share"] == pytest.approx(0.5)
    assert con["unmatched_share"] == 0

    client.force_login(UserFactory(role="admin"))
    page = client.get(f"/projects/{project.slug}/reports/key_points/").content.decode()
    assert "Boxing causes injuries" in page and "No key point" in page
    figure = client.get(f"/projects/{project.slug}/reports/key_points/runs/{run.pk}/summary.svg")
    assert figure.status_code == 200 and b"<svg" in figure.content
    labels = client.get(f"/projects/{project.slug}/reports/key_points/runs/{run.pk}/files/labels").content.decode()
    assert labels.splitlines()[0] == "arg_id,key_point_id,label" and "a2,k3,1" in labels
    archive = zipfile.ZipFile(io.BytesIO(client.get(f"/projects/{project.slug}/key-points/runs/{run.pk}/labels.zip").content))
    assert sorted(archive.namelist()) == ["arguments.csv", "key_points.csv", "labels.csv"]
    assert archive.read("arguments.csv").decode() == ARGUMENTS
    assert archive.read("key_points.csv").decode() == KEY_POINTS


def test_the_thresholds_are_the_projects_options():
    # With label 1 from a third of the annotators, (a1, k2) is a match too.
    project = annotated({"positive_share": 0.3, "negative_share": 0.1})
    labels = {(r["arg_id"], r["key_point_id"]): r["label"] for r in run_report(project).result["labels"]}
    assert labels[("a1", "k2")] == 1


def test_the_report_reads_the_imported_gold_on_request():
    project = annotated()
    result = run_report(project, labels="gold").result
    assert sorted((r["arg_id"], r["key_point_id"], r["label"]) for r in result["labels"]) == [
        ("a1", "k1", 1), ("a1", "k2", 0), ("a2", "k3", 1)]
