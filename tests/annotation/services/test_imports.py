"""Imports above a small size run as jobs: the request returns at once with the job, whose page
and API show progress, then the counts or every bad line; the import and the job's outcome commit
together, cancelled jobs write nothing, and stored uploads are deleted when no job needs them."""

import json
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import ImportJob, Item
from annotation.services import imports
from annotation.services.imports import (
    import_job_cancel,
    import_job_execute,
    import_upload,
    import_uploads_tidy,
)
from jobs import services as job_services
from jobs.services import TransientFault
from task_types.pairwise.tests.factories import items_file
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = ImportJob.Status


@pytest.fixture(autouse=True)
def small_inline_limit(settings):
    settings.IMPORT_INLINE_MAX_BYTES = 1024


@pytest.fixture
def admin():
    return UserFactory(role="admin")


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_large_file_becomes_a_job_and_the_api_follows_it(admin, monkeypatch, django_capture_on_commit_callbacks):
    from annotation import tasks

    project = ProjectFactory()
    sent = []
    monkeypatch.setattr(tasks.run_import, "delay", sent.append)
    data = items_file(200)
    with django_capture_on_commit_callbacks(execute=True):
        response = api(admin).post(f"/api/projects/{project.slug}/items/import/",
                                   {"file": SimpleUploadedFile("items.csv", data)}, format="multipart")
    body = response.json()
    job = ImportJob.objects.get()
    # The request stored the file and queued the job; it imported nothing itself.
    assert response.status_code == 202 and body["status"] == "queued" and sent == [job.pk]
    assert response["Location"] == f"/api/imports/{job.pk}/" and body["url"].endswith(f"/api/imports/{job.pk}/")
    assert not Item.objects.exists() and default_storage.exists(job.stored_name)
    assert job.size == len(data) and job.filename == "items.csv" and job.created_by == admin

    finished = import_job_execute(job_id=job.pk)
    assert finished.status == Status.DONE and finished.result == {"created": 200, "updated": 0, "unchanged": 0}
    assert Item.objects.filter(project=project).count() == 200
    assert not default_storage.exists(job.stored_name) and finished.stored_name == ""
    status = api(admin).get(f"/api/imports/{job.pk}/").json()
    assert status["status"] == "done" and status["progress"] == 1.0 and status["result"]["created"] == 200
    assert import_job_execute(job_id=job.pk) is None  # a second delivery does nothing


def test_a_refused_file_lists_every_bad_line_and_writes_nothing(admin, django_capture_on_commit_callbacks):
    project = ProjectFactory()
    with django_capture_on_commit_callbacks(execute=True):
        response = api(admin).post(f"/api/projects/{project.slug}/items/import/",
                                   {"file": SimpleUploadedFile("items.csv", items_file(100, bad_line=57))},
                                   format="multipart")
    assert response.status_code == 202
    status = api(admin).get(response["Location"]).json()
    assert status["status"] == "failed" and status["error_count"] == 1
    assert status["errors"] == [{"line": 57, "field": "prompt", "message": "must not be empty"}]
    assert "Nothing was imported" in status["error"] and not Item.objects.exists()


def test_the_admin_page_follows_the_job_and_shows_its_outcome(client, admin, monkeypatch,
                                                              django_capture_on_commit_callbacks):
    from annotation import tasks

    project = ProjectFactory()
    client.force_login(admin)
    monkeypatch.setattr(tasks.run_import, "delay", lambda job_id: None)
    url = reverse("admin:annotation_project_import", args=[project.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"file": SimpleUploadedFile("items.csv", items_file(50)), "on_duplicate": "reject"})
    job = ImportJob.objects.get()
    page_url = reverse("admin:annotation_project_import_job", args=[project.pk, job.pk])
    assert response.status_code == 302 and response.url == page_url
    page = client.get(page_url).content.decode()
    assert 'data-testid="job-progress"' in page and "queued" in page and 'hx-trigger="every 1s"' in page
    assert "No job worker is running" in page
    partial = client.get(page_url, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<div hx-get="') and "<html" not in partial

    import_job_execute(job_id=job.pk)
    assert client.get(page_url, HTTP_HX_REQUEST="true")["HX-Refresh"] == "true"
    page = client.get(page_url).content.decode()
    assert 'data-testid="import-done"' in page and "50 new, 0 updated, 0 unchanged items" in page


def test_a_small_file_is_still_imported_in_the_request(client, admin):
    project = ProjectFactory()
    client.force_login(admin)
    response = client.post(reverse("admin:annotation_project_import", args=[project.pk]),
                           {"file": SimpleUploadedFile("items.csv", items_file(2)), "on_duplicate": "reject"})
    assert response.status_code == 302 and Item.objects.count() == 2 and not ImportJob.objects.exists()


def test_cancelling_a_queued_import_deletes_its_file_and_imports_nothing(admin):
    project = ProjectFactory()
    outcome = import_upload(project=project, kind="items", upload=SimpleUploadedFile("items.csv", items_file(40)),
                            options={}, user=admin)
    job = import_job_cancel(job=outcome.job, user=admin)
    assert job.status == Status.CANCELLED and job.error == f"Cancelled by {admin.username}."
    assert job.stored_name == "" and not default_storage.exists(outcome.job.stored_name)
    assert import_job_execute(job_id=job.pk) is None and not Item.objects.exists()


def test_an_import_cancelled_while_writing_is_rolled_back(admin, monkeypatch):
    project = ProjectFactory()
    job = import_upload(project=project, kind="items", upload=SimpleUploadedFile("items.csv", items_file(40)),
                        options={}, user=admin).job
    # What the guarded write of the outcome finds when the job was cancelled (or reaped and
    # restarted) while this attempt was writing: no row of this attempt to update.
    monkeypatch.setattr(job_services, "job_finish", lambda **fields: False)
    after = import_job_execute(job_id=job.pk)
    # The outcome could not be stored, so the import's writes were rolled back with it.
    assert after.status != Status.DONE and not Item.objects.exists()


def test_a_lost_database_requeues_the_job_and_keeps_its_file(admin, monkeypatch):
    project = ProjectFactory()
    job = import_upload(project=project, kind="items", upload=SimpleUploadedFile("items.csv", items_file(40)),
                        options={}, user=admin).job

    def gone(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(imports, "parse_items", gone)
    with pytest.raises(TransientFault):
        import_job_execute(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == Status.QUEUED and default_storage.exists(job.stored_name)
    monkeypatch.undo()
    assert import_job_execute(job_id=job.pk).status == Status.DONE and Item.objects.count() == 40


def test_crowd_results_options_are_checked_before_anything_is_stored(admin):
    from annotation.importers import ImportFailed

    project = ProjectFactory()
    with pytest.raises(ImportFailed, match="is not field=Column"):
        import_upload(project=project, kind="crowd", upload=SimpleUploadedFile("r.csv", b"x" * 5000),
                      options={"columns": "label"}, user=admin)
    with pytest.raises(ImportFailed, match="cannot tell the format"):
        import_upload(project=project, kind="items", upload=SimpleUploadedFile("items.xlsx", b"x" * 5000),
                      options={}, user=admin)
    assert not ImportJob.objects.exists()


def test_uploads_of_long_finished_jobs_are_deleted(admin):
    project = ProjectFactory()
    job = import_upload(project=project, kind="items", upload=SimpleUploadedFile("items.csv", items_file(40)),
                        options={}, user=admin).job
    ImportJob.objects.filter(pk=job.pk).update(status=Status.FAILED, finished_at=timezone.now() - timedelta(hours=1))
    assert import_uploads_tidy() == 0 and default_storage.exists(job.stored_name)
    ImportJob.objects.filter(pk=job.pk).update(finished_at=timezone.now() - timedelta(days=2))
    assert import_uploads_tidy() == 1 and not default_storage.exists(job.stored_name)


def test_the_job_api_needs_permission(admin):
    project = ProjectFactory()
    job = import_upload(project=project, kind="items", upload=SimpleUploadedFile("items.csv", items_file(40)),
                        options={}, user=admin).job
    assert api(UserFactory()).get(f"/api/imports/{job.pk}/").status_code == 403
    assert api(UserFactory(role="researcher")).get(f"/api/imports/{job.pk}/").status_code == 200
    assert api(UserFactory(role="researcher")).post(f"/api/imports/{job.pk}/cancel/").status_code == 403
    assert api(admin).post(f"/api/imports/{job.pk}/cancel/").json()["status"] == "cancelled"
    assert api(admin).post(f"/api/imports/{job.pk}/cancel/").status_code == 409
    json.dumps(api(admin).get(f"/api/imports/{job.pk}/").json())
