"""Every report page is one frame (``analysis.views.run_header``): the run header partial, the
run controls on the page's own address, and a GET that writes nothing. A run whose worker died
is shown as stopped from its heartbeat; the scheduler and the writes (restart, a new run,
cancel) are what mark it failed."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.template.utils import get_app_template_dirs
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from analysis.models import AnalysisRun
from analysis.reports import get_report, page_url, report_kinds
from analysis.services import analysis_run_create
from annotation.models import ImportJob
from annotation.task_types import task_types
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = AnalysisRun.Status
HEADER = "analysis/run_header.html"
HTMX = {"HTTP_HX_REQUEST": "true"}
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def report_page_cases():
    """(task type, report kind) of every report page of every registered type."""
    return [(task.slug, kind) for task in task_types() for kind, _ in report_kinds(task.slug)]


def dead_run(project, kind):
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_DEAD_SECONDS + 60)
    return AnalysisRun.objects.create(project=project, kind=kind, status=Status.RUNNING, progress=0.3,
                                      started_at=long_ago, heartbeat_at=long_ago)


def writes(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().upper().startswith(WRITES)]


@pytest.fixture
def admin(client):
    client.force_login(UserFactory(role="admin"))
    return client


@pytest.mark.parametrize(("task_type", "kind"), report_page_cases())
def test_a_report_page_shows_a_dead_run_as_stopped_and_writes_nothing(admin, task_type, kind):
    project = ProjectFactory(task_type=task_type)
    run = dead_run(project, kind)
    url = page_url(get_report(kind).page_key, project.slug)
    with CaptureQueriesContext(connection) as queries:
        response = admin.get(url)
        poll = admin.get(url, {"poll": run.pk}, **HTMX)
    assert response.status_code == 200 and writes(queries) == []
    body = response.content.decode()
    assert HEADER in [t.name for t in response.templates]
    assert f"Run #{run.pk} failed: The job worker stopped: no heartbeat for more than" in body
    assert 'name="action" value="restart"' in body and 'data-testid="job-progress"' not in body
    # The progress bar that was polling learns it at its next look: the page reloads.
    assert poll["HX-Refresh"] == "true"
    run.refresh_from_db()
    assert run.status == Status.RUNNING and run.error == ""


def test_a_live_run_polls_its_own_page(admin):
    project = ProjectFactory()
    run = AnalysisRun.objects.create(project=project, kind="pairwise_gold", status=Status.RUNNING, progress=0.5,
                                     started_at=timezone.now(), heartbeat_at=timezone.now())
    url = reverse("gold-page", args=[project.slug])
    body = admin.get(url).content.decode()
    assert f'hx-get="{url}?poll={run.pk}"' in body and 'name="action" value="cancel"' in body
    partial = admin.get(url, {"poll": run.pk}, **HTMX)
    assert partial.templates[0].name == "analysis/run_status.html" and 'aria-valuenow="50"' in partial.content.decode()
    # A run of another page is not this page's to show.
    other = AnalysisRun.objects.create(project=project, kind="agreement", status=Status.RUNNING)
    assert admin.get(url, {"poll": other.pk}, **HTMX).status_code == 404


def test_every_report_page_has_one_header_source():
    """Only the header partial includes the run state and the settings form; each report
    page's template includes the header (checked page by page above)."""
    dirs = [Path(d) for d in settings.TEMPLATES[0]["DIRS"]] + [Path(d) for d in get_app_template_dirs("templates")]
    includers = {}
    for root in dirs:
        for path in root.rglob("*.html"):
            text = path.read_text()
            for part in ("analysis/run_state.html", "analysis/params_form.html"):
                if part in text:
                    includers.setdefault(part, set()).add(path.relative_to(root).as_posix())
    assert includers == {"analysis/run_state.html": {HEADER}, "analysis/params_form.html": {HEADER}}


def test_restart_works_on_a_dead_run(admin, monkeypatch, django_capture_on_commit_callbacks):
    from analysis import tasks

    sent = []
    monkeypatch.setattr(tasks.run_analysis, "delay", sent.append)
    project = ProjectFactory()
    run = dead_run(project, "agreement")
    url = reverse("analysis-dashboard", args=[project.slug])
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(url, {"action": "restart", "job": run.pk})
    assert response.status_code == 302 and response.url == url
    run.refresh_from_db()
    assert run.status == Status.QUEUED and run.error == "" and sent == [run.pk]


def test_a_new_run_sends_the_dead_ones_back_to_the_queue(monkeypatch, django_capture_on_commit_callbacks):
    from analysis import tasks

    sent = []
    monkeypatch.setattr(tasks.run_analysis, "delay", sent.append)
    project = ProjectFactory()
    dead = dead_run(project, "agreement")
    with django_capture_on_commit_callbacks(execute=True):
        analysis_run_create(project=project, kind="agreement")
    dead.refresh_from_db()
    assert dead.status == Status.QUEUED and "no heartbeat" in dead.error and dead.pk in sent


def test_the_api_reads_a_dead_run_as_failed_and_writes_nothing():
    run = dead_run(ProjectFactory(), "agreement")
    api = APIClient()
    api.force_authenticate(UserFactory(role="researcher"))
    with CaptureQueriesContext(connection) as queries:
        body = api.get(f"/api/analysis/{run.pk}/").json()
    assert writes(queries) == []
    assert body["status"] == "failed" and body["error"].startswith("The job worker stopped: no heartbeat")
    run.refresh_from_db()
    assert run.status == Status.RUNNING


def test_the_import_page_says_its_worker_stopped_and_writes_nothing(client):
    admin = UserFactory(role="admin")
    client.force_login(admin)
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_DEAD_SECONDS + 60)
    job = ImportJob.objects.create(project=ProjectFactory(), kind="items", filename="items.csv", size=10,
                                   stored_name="imports/kept", status=ImportJob.Status.RUNNING,
                                   started_at=long_ago, heartbeat_at=long_ago)
    url = reverse("admin:annotation_project_import_job", args=[job.project.pk, job.pk])
    with CaptureQueriesContext(connection) as queries:
        page = client.get(url).content.decode()
        poll = client.get(url, **HTMX)
    assert writes(queries) == []
    assert 'data-testid="import-failed"' in page and "The job worker stopped: no heartbeat" in page
    assert "Restart the import" in page and 'data-testid="job-progress"' not in page
    assert poll["HX-Refresh"] == "true"
    job.refresh_from_db()
    assert job.status == ImportJob.Status.RUNNING
