"""Scoring a system's predictions in a project: the upload page, the API (inline for a small
file, a background job for a large one), and the two commands."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from analysis.methods.keypoint_eval import evaluate, load_data, parse_predictions
from task_types.key_points.corpus import read_corpus
from task_types.key_points.evaluation import evaluation_execute
from task_types.key_points.models import PredictionEvaluation
from task_types.key_points.services import corpus_import
from task_types.key_points.tests.test_corpus import ARGUMENTS, KEY_POINTS, LABELS
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
PREDICTIONS = {"a1": {"k1": 0.9, "k2": 0.2, "k404": 0.99}, "a2": {"k3": 0.7}, "a3": {"k2": 0.4, "k1": 0.1}}


def project_with_gold():
    project = ProjectFactory(task_type="key_points")
    corpus_import(project=project, corpus=read_corpus(ARGUMENTS, KEY_POINTS, LABELS))
    return project


def expected(tmp_path) -> dict:
    """The pure evaluation of the same predictions on the same three files."""
    for name, text in (("arguments", ARGUMENTS), ("key_points", KEY_POINTS), ("labels", LABELS)):
        (tmp_path / f"{name}_t.csv").write_text(text)
    data = load_data(tmp_path, "t")
    return evaluate(arguments=data.arguments, key_points=data.key_points, labels=data.labels,
                    predictions=parse_predictions(json.dumps(PREDICTIONS))).to_dict()


def test_the_upload_page_scores_a_small_file_at_once(client, tmp_path):
    project = project_with_gold()
    client.force_login(UserFactory(role="admin"))
    assert client.get(f"/projects/{project.slug}/key-points/evaluations/").status_code == 200
    upload = SimpleUploadedFile("system.json", json.dumps(PREDICTIONS).encode(), content_type="application/json")
    response = client.post(f"/projects/{project.slug}/key-points/evaluations/", {"predictions": upload}, follow=True)
    job = PredictionEvaluation.objects.get(project=project)
    assert job.status == "done" and job.labels == "gold"
    assert job.result == expected(tmp_path)
    assert job.result["ignored_key_points"]["examples"] == ["k404"]
    page = response.content.decode()
    assert f"{job.result['strict']:.4f}" in page and "k404" in page
    assert job.stored_name == ""  # the upload is deleted once read


def test_the_api_queues_a_large_file_as_a_job(client, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.IMPORT_INLINE_MAX_BYTES = 10
    project = project_with_gold()
    client.force_login(UserFactory(role="admin"))
    upload = SimpleUploadedFile("system.json", json.dumps(PREDICTIONS).encode())
    sent = []
    from task_types.key_points import evaluation

    original = evaluation._send
    evaluation._send = sent.append
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(f"/api/projects/{project.slug}/key-points/evaluations/", {"predictions": upload})
    finally:
        evaluation._send = original
    assert response.status_code == 202 and response.json()["status"] == "queued"
    job_id = response.json()["id"]
    assert sent == [job_id]  # the request queued it and did not score it
    evaluation_execute(job_id=job_id)  # what the worker does
    body = client.get(f"/api/key-points/evaluations/{job_id}/").json()
    assert body["status"] == "done" and body["result"]["strict"] == expected(tmp_path)["strict"]


def test_the_api_takes_the_predictions_as_a_json_body_and_names_bad_ones(client, tmp_path):
    project = project_with_gold()
    client.force_login(UserFactory(role="admin"))
    url = f"/api/projects/{project.slug}/key-points/evaluations/"
    response = client.post(url, PREDICTIONS, content_type="application/json")
    assert response.status_code == 201 and response.json()["result"]["relaxed"] == expected(tmp_path)["relaxed"]
    bad = client.post(url, {"a1": {"k1": "high"}}, content_type="application/json").json()
    assert bad["status"] == "failed" and "a1" in bad["error"]
    assert client.get(url).json()[0]["id"] == bad["id"]
    annotator = UserFactory()
    client.force_login(annotator)
    assert client.post(url, PREDICTIONS, content_type="application/json").status_code == 403


def test_labels_from_the_annotations_when_the_project_has_no_gold(client):
    from task_types.key_points.tests.test_report import answer

    project = ProjectFactory(task_type="key_points")
    corpus_import(project=project, corpus=read_corpus(ARGUMENTS, KEY_POINTS))
    for name in ("w1", "w2", "w3"):
        answer(project, UserFactory(username=name), {"a1": ["k1"], "a2": ["k3"], "a3": ["none"]})
    client.force_login(UserFactory(role="admin"))
    body = client.post(f"/api/projects/{project.slug}/key-points/evaluations/", PREDICTIONS,
                       content_type="application/json").json()
    assert body["status"] == "done" and body["labels"] == "annotations"


def test_the_commands_import_and_evaluate(tmp_path, capsys):
    project = ProjectFactory(task_type="key_points", slug="kp")
    for name, text in (("arguments", ARGUMENTS), ("key_points", KEY_POINTS), ("labels", LABELS)):
        (tmp_path / f"{name}_t.csv").write_text(text)
    call_command("import_key_points", "kp", str(tmp_path), "--subset", "t")
    assert "3 arguments in 2 topic-stance groups, 3 key points, 3 gold labels: 3 new items" in capsys.readouterr().out
    assert project.items.count() == 3
    predictions = tmp_path / "p.json"
    predictions.write_text(json.dumps(PREDICTIONS))
    call_command("evaluate_key_points", "kp", str(predictions))
    printed = json.loads(capsys.readouterr().out)
    assert printed["strict"] == expected(tmp_path)["strict"] and printed["labels"] == "gold"
    (tmp_path / "arguments_bad.csv").write_text(ARGUMENTS.replace(",-1", ",0"))
    (tmp_path / "key_points_bad.csv").write_text(KEY_POINTS)
    with pytest.raises(CommandError, match="arguments_bad.csv line 3, field 'stance'"):
        call_command("import_key_points", "kp", str(tmp_path), "--subset", "bad")


# a1's two key points tie; the JSON lists k2 (label 0) before k1 (label 1, first in the file).
TIED = {"a1": {"k2": 0.5, "k1": 0.5}, "a3": {"k1": 0.1}}


def test_ties_are_settled_as_the_shared_task_did_unless_the_upload_asks_for_file_order(client, tmp_path):
    project = project_with_gold()
    client.force_login(UserFactory(role="admin"))
    url = f"/projects/{project.slug}/key-points/evaluations/"
    assert 'name="ties"' in client.get(url).content.decode()
    for ties, strict in (("official", 0.0), ("file-order", 0.5)):
        upload = SimpleUploadedFile("tied.json", json.dumps(TIED).encode(), content_type="application/json")
        response = client.post(url, {"predictions": upload, "ties": ties}, follow=True)
        job = PredictionEvaluation.objects.filter(project=project).first()
        assert (job.ties, job.result["ties"], job.result["strict"]) == (ties, ties, strict)
        assert f'data-testid="ties">{job.get_ties_display().lower()}'.replace("'", "&#x27;") in response.content.decode()
    api = f"/api/projects/{project.slug}/key-points/evaluations/"
    body = client.post(api, TIED, content_type="application/json").json()
    assert (body["ties"], body["result"]["strict"]) == ("official", 0.0)
    body = client.post(f"{api}?ties=file-order", TIED, content_type="application/json").json()
    assert (body["ties"], body["result"]["strict"]) == ("file-order", 0.5)
    refused = client.post(f"{api}?ties=random", TIED, content_type="application/json")
    assert refused.status_code == 400 and "official, file-order" in str(refused.json()["ties"])


def test_the_command_takes_the_tie_rule(tmp_path, capsys):
    project = project_with_gold()
    predictions = tmp_path / "tied.json"
    predictions.write_text(json.dumps(TIED))
    call_command("evaluate_key_points", project.slug, str(predictions))
    assert json.loads(capsys.readouterr().out)["strict"] == 0.0
    call_command("evaluate_key_points", project.slug, str(predictions), "--ties", "file-order")
    printed = json.loads(capsys.readouterr().out)
    assert (printed["strict"], printed["ties"]) == (0.5, "file-order")
