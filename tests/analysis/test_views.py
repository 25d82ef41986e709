"""The agreement dashboard, its figures and exports, the API and the command."""

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from analysis.models import AnalysisRun
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(role="admin"))
    return client


def compute(client, project, **params):
    """Start an agreement run from its page, as its form does."""
    fields = {f"param_{name}": value for name, value in params.items()}
    return client.post(reverse("analysis-dashboard", args=[project.slug]), {"action": "start", **fields})


def test_dashboard_before_and_after_a_run(admin_client, annotated_project, django_capture_on_commit_callbacks):
    url = reverse("analysis-dashboard", args=[annotated_project.slug])
    body = admin_client.get(url).content.decode()
    assert "No analysis yet." in body and "Compute agreement and competence" in body
    with django_capture_on_commit_callbacks(execute=True):
        assert compute(admin_client, annotated_project, n_boot="30").status_code == 302
    response = admin_client.get(url)
    body = response.content.decode()
    run = AnalysisRun.objects.get()
    assert f"Figures of run #{run.pk}" in body and "Up to date." in body
    assert [f.key for f in response.context["figures"]][:3] == ["krippendorff_alpha", "fleiss_kappa", "cohen_kappa"]
    assert "95% interval" in body
    for name in ("curve", "votes", "competence"):
        svg = admin_client.get(reverse("analysis-figure", args=[annotated_project.slug, run.pk, name]))
        assert svg["Content-Type"] == "image/svg+xml" and svg.content.startswith(b"<?xml")
    assert admin_client.get(reverse("analysis-figure", args=[annotated_project.slug, run.pk, "nope"])).status_code == 404
    hourly = admin_client.get(reverse("analysis-hourly", args=[annotated_project.slug]))
    assert b"<svg" in hourly.content


def test_worker_table_sorts_and_exports(admin_client, annotated_project, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        compute(admin_client, annotated_project)
    url = reverse("analysis-dashboard", args=[annotated_project.slug])
    by_count = list(admin_client.get(url, {"sort": "annotations", "dir": "desc"}).context["workers"])
    counts = [w["annotations"] for w in by_count]
    assert counts == sorted(counts, reverse=True) and sum(counts) == 18
    by_name = list(admin_client.get(url, {"sort": "worker"}).context["workers"])
    assert [w["worker"] for w in by_name] == ["w0", "w1", "w2", "w3"]
    run = AnalysisRun.objects.get()
    raw = admin_client.get(reverse("analysis-workers-csv", args=[annotated_project.slug, run.pk])).content.decode()
    rows = list(csv.DictReader(io.StringIO(raw)))
    assert {r["worker"] for r in rows} == {"w0", "w1", "w2", "w3"} and rows[0]["rank"] == "1"


def test_progress_bar_polls_then_refreshes_the_page(admin_client, annotated_project):
    run = AnalysisRun.objects.create(project=annotated_project, kind="agreement", status="running",
                                     progress=0.4, stage="MACE worker competence")
    url = reverse("analysis-dashboard", args=[annotated_project.slug])
    page = admin_client.get(url).content.decode()
    assert 'hx-trigger="every 1s"' in page and "Compute agreement" not in page
    assert f'hx-get="{url}?poll={run.pk}"' in page
    partial = admin_client.get(url, {"poll": run.pk}, **HTMX)
    body = partial.content.decode()
    assert 'data-testid="job-progress"' in body and 'aria-valuenow="40"' in body
    assert "40%" in body and "MACE worker competence" in body and 'data-testid="job-cancel"' in body
    AnalysisRun.objects.filter(pk=run.pk).update(status="done", result={})
    finished = admin_client.get(url, {"poll": run.pk}, **HTMX)
    assert finished["HX-Refresh"] == "true"


def test_compute_queues_the_run_and_returns_at_once(admin_client, annotated_project, monkeypatch,
                                                    django_capture_on_commit_callbacks):
    from analysis import tasks

    sent = []
    monkeypatch.setattr(tasks.run_analysis, "delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        response = compute(admin_client, annotated_project, n_boot="30")
    run = AnalysisRun.objects.get()
    # The request only queued the run: nothing was computed in it.
    assert response.status_code == 302 and sent == [run.pk]
    assert run.status == AnalysisRun.Status.QUEUED and run.result is None and run.params["n_boot"] == 30
    page = admin_client.get(response.url).content.decode()
    assert f"Run #{run.pk}" in page and "queued" in page
    # No worker has said it is alive in this test: the page says why the run waits.
    assert 'data-testid="no-worker"' in page and "make run" in page


def test_a_type_page_starts_its_own_run_and_takes_only_its_parameters(admin_client, annotated_project, monkeypatch):
    """The gold page's form posts to the gold page itself, which starts its own kind of run;
    only ``param_`` fields are parameters (a page name once reached the run as an unknown
    parameter), and a posted kind is not the page's to follow."""
    from analysis import tasks

    monkeypatch.setattr(tasks.run_analysis, "delay", lambda run_id: None)
    page = reverse("gold-page", args=[annotated_project.slug])
    response = admin_client.post(page, {
        "action": "start", "kind": "agreement", "next": "https://example.org/", "param_mace_restarts": "2",
        "param_mace_em": "true",
    })
    assert response.status_code == 302 and response.url == page
    run = AnalysisRun.objects.get()
    assert run.kind == "pairwise_gold" and run.params["mace_restarts"] == 2 and run.params["mace_em"] is True
    assert admin_client.post(page, {"action": "compute"}).status_code == 400


def test_cancel_and_restart_from_the_page(admin_client, annotated_project, monkeypatch):
    from analysis import tasks

    sent = []
    monkeypatch.setattr(tasks.run_analysis, "delay", sent.append)
    run = AnalysisRun.objects.create(project=annotated_project, kind="agreement", status="running",
                                     progress=0.2, stage="computing")
    url = reverse("analysis-dashboard", args=[annotated_project.slug])
    response = admin_client.post(url, {"action": "cancel", "job": run.pk})
    run.refresh_from_db()
    assert response.status_code == 302 and response.url == url and run.status == AnalysisRun.Status.CANCELLED
    page = admin_client.get(response.url).content.decode()
    assert f"Run #{run.pk} was cancelled" in page
    admin_client.post(url, {"action": "restart", "job": run.pk})
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.QUEUED


def test_bad_parameters_are_reported(admin_client, annotated_project):
    response = compute(admin_client, annotated_project, n_boot="many")
    assert response.status_code == 302
    page = admin_client.get(response.url).content.decode()
    assert "parameter &#x27;n_boot&#x27;: must be int, got &#x27;many&#x27;" in page
    assert not AnalysisRun.objects.exists()


def test_annotators_cannot_see_the_dashboard(client, annotated_project):
    client.force_login(UserFactory())
    assert client.get(reverse("analysis-dashboard", args=[annotated_project.slug])).status_code == 403
    assert compute(client, annotated_project).status_code == 403
    assert not AnalysisRun.objects.exists()


def test_api_starts_and_reads_a_run(annotated_project, django_capture_on_commit_callbacks):
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post(f"/api/projects/{annotated_project.slug}/analysis/",
                           {"kind": "agreement", "params": {"n_boot": 10}}, format="json")
    assert created.status_code == 201
    run = api.get(f"/api/analysis/{created.json()['id']}/").json()
    assert run["status"] == "done" and run["result"]["figures"]["n_items"] == 6
    bad = api.post(f"/api/projects/{annotated_project.slug}/analysis/", {"kind": "ranking"}, format="json")
    assert bad.status_code == 400 and "known kinds: agreement" in bad.json()["kind"]
    listed = api.post(f"/api/projects/{annotated_project.slug}/analysis/", [{"kind": "agreement"}], format="json")
    assert listed.status_code == 400 and "JSON object" in listed.json()["body"]
    researcher = APIClient()
    researcher.force_authenticate(UserFactory(role="researcher"))
    assert researcher.get(f"/api/analysis/{created.json()['id']}/").status_code == 200
    assert researcher.post(f"/api/projects/{annotated_project.slug}/analysis/", {}, format="json").status_code == 403


@pytest.mark.django_db(transaction=True)
def test_analyze_command(annotated_project):
    out = io.StringIO()
    call_command("analyze", annotated_project.slug, "--param", "n_boot=0", stdout=out)
    assert "done in" in out.getvalue() and "fleiss_kappa" in out.getvalue()
    out = io.StringIO()
    call_command("analyze", annotated_project.slug, "--json", stdout=out)
    assert json.loads(out.getvalue())["figures"]["n_annotations"] == 18
    with pytest.raises(CommandError, match="parameter 'seed'"):
        call_command("analyze", annotated_project.slug, "--param", "seed=x")
    with pytest.raises(CommandError, match="known kinds"):
        call_command("analyze", annotated_project.slug, "--kind", "nope")


def test_recompute_every_analysis(admin_client, annotated_project, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        compute(admin_client, annotated_project, n_boot="7")
        response = admin_client.post(reverse("analysis-recompute-all", args=[annotated_project.slug]))
    assert response.status_code == 302
    runs = list(AnalysisRun.objects.order_by("pk"))
    assert [r.kind for r in runs] == ["agreement", "agreement", "pairwise_gold", "position_bias"]
    assert runs[1].params == runs[0].params and runs[1].params["n_boot"] == 7  # the latest parameters
    assert all(r.status == "done" for r in runs), [r.error for r in runs]


@pytest.mark.django_db(transaction=True)
def test_analyze_all_command(annotated_project):
    out = io.StringIO()
    call_command("analyze", annotated_project.slug, "--all", stdout=out)
    assert out.getvalue().splitlines() == [f"{r.kind} run #{r.pk}: done" for r in AnalysisRun.objects.order_by("kind")]
    assert [r.kind for r in AnalysisRun.objects.order_by("kind")] == ["agreement", "pairwise_gold", "position_bias"]


def test_analyze_here_runs_in_this_process_and_queued_runs_say_why_they_wait(annotated_project, monkeypatch):
    from analysis import tasks

    monkeypatch.setattr(tasks.run_analysis, "delay", lambda run_id: None)
    out = io.StringIO()
    call_command("analyze", annotated_project.slug, "--here", "--param", "n_boot=0", stdout=out)
    assert "done in" in out.getvalue() and AnalysisRun.objects.get().status == "done"
    out = io.StringIO()
    call_command("analyze", annotated_project.slug, "--param", "n_boot=0", stdout=out)
    assert "is queued" in out.getvalue() and "no job worker is running" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_analyze_with_the_job_queue_away_says_so_without_a_traceback(annotated_project, monkeypatch):
    from kombu.exceptions import OperationalError as BrokerError

    from analysis import services

    def away(pk):
        raise BrokerError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(services, "_send", away)
    with pytest.raises(CommandError, match="The job queue could not be reached.*--here"):
        call_command("analyze", annotated_project.slug)
    assert AnalysisRun.objects.get().status == "failed"
