"""The admin page that imports the shared task's files into a key-point project."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from task_types.key_points.tests.test_corpus import ARGUMENTS, KEY_POINTS, LABELS
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def upload(name, text):
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def test_uploaded_files_become_items_with_gold_and_a_refused_file_names_file_line_and_field(
        client, django_capture_on_commit_callbacks):
    project = ProjectFactory(task_type="key_points")
    client.force_login(UserFactory(role="admin", is_superuser=True, is_staff=True))
    url = f"/admin/annotation/project/{project.pk}/key-points/"
    # The import runs as a job (in the test, at once); the page redirects to the job's page.
    with django_capture_on_commit_callbacks(execute=True):
        bad = client.post(url, {"arguments": upload("arguments.csv", ARGUMENTS.replace(",-1", ",2")),
                                "key_points": upload("key_points.csv", KEY_POINTS)})
    assert bad.status_code == 302
    bad = client.get(bad["Location"])
    assert "arguments.csv line 3, field 'stance': unknown stance &#x27;2&#x27;" in bad.content.decode()
    assert project.items.count() == 0
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(url, {"arguments": upload("arguments.csv", ARGUMENTS),
                                 "key_points": upload("key_points.csv", KEY_POINTS),
                                 "labels": upload("labels.csv", LABELS)})
    assert done.status_code == 302
    assert "/imports/" in done["Location"]
    assert 'data-testid="import-done"' in client.get(done["Location"]).content.decode()
    assert project.items.get(external_id="a1").gold == {"k1": 1, "k2": 0}



def test_importing_the_same_files_again_can_update_the_items(client, django_capture_on_commit_callbacks):
    """A second import of the same arguments is refused by default, naming each row, and the
    page offers what the refusal advises: updating those items."""
    project = ProjectFactory(task_type="key_points")
    client.force_login(UserFactory(role="admin", is_superuser=True, is_staff=True))
    url = f"/admin/annotation/project/{project.pk}/key-points/"
    form = client.get(url).content.decode()
    assert 'name="on_duplicate"' in form and "update those items" in form

    def send(**extra) -> str:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(url, {"arguments": upload("arguments.csv", ARGUMENTS),
                                         "key_points": upload("key_points.csv", KEY_POINTS),
                                         **extra})
        assert response.status_code == 302
        return client.get(response["Location"]).content.decode()

    assert 'data-testid="import-done"' in send()
    count = project.items.count()
    refused = send()
    assert "already exists in this project" in refused and project.items.count() == count
    assert 'data-testid="import-done"' in send(on_duplicate="update")
    assert project.items.count() == count


@pytest.mark.django_db(transaction=True)
def test_with_the_job_queue_away_the_import_answers_503_and_keeps_its_files(client, monkeypatch):
    """The job is stored failed, with its files kept, so that a restart once the broker is back
    imports them; the page answers 503 with Retry-After rather than a 500."""
    from django.core.files.storage import default_storage
    from kombu.exceptions import OperationalError as BrokerError

    from annotation.models import ImportJob
    from annotation.services import imports

    def away(pk):
        raise BrokerError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(imports, "_send", away)
    project = ProjectFactory(task_type="key_points")
    client.force_login(UserFactory(role="admin", is_superuser=True, is_staff=True))
    client.raise_request_exception = False
    # Committed for real, so that the job is sent (and refused) within the request.
    response = client.post(f"/admin/annotation/project/{project.pk}/key-points/",
                           {"arguments": upload("arguments.csv", ARGUMENTS),
                            "key_points": upload("key_points.csv", KEY_POINTS)})
    assert response.status_code == 503 and int(response["Retry-After"]) > 0
    job = ImportJob.objects.get(project=project)
    assert job.status == "failed" and "The job queue could not be reached" in job.error
    assert job.stored_name and default_storage.exists(job.stored_name)
    assert project.items.count() == 0
