"""The admin shows a linked study's submissions, webhook deliveries and sync jobs, and changes none."""

import pytest

from recruiting.models import ProlificSubmission, ProlificSyncJob
from recruiting.services.prolific.sync import prolific_submissions_sync
from tests.factories import UserFactory
from tests.recruiting.prolific_helpers import arrive, linked_project

pytestmark = pytest.mark.django_db


def test_the_admin_lists_and_changes_nothing(client, fake_prolific):
    project = linked_project()
    sid, _ = arrive(fake_prolific, project, "pid-1")
    prolific_submissions_sync(study=project.prolific_study)
    ProlificSyncJob.objects.create(study=project.prolific_study)
    client.force_login(UserFactory(role="admin", is_staff=True))
    listing = client.get("/admin/recruiting/prolificsubmission/")
    assert listing.status_code == 200 and sid in listing.content.decode()
    assert client.get("/admin/recruiting/prolificwebhookevent/").status_code == 200
    assert client.get("/admin/recruiting/prolificsyncjob/").status_code == 200
    assert client.get("/admin/recruiting/prolificsubmission/add/").status_code == 403
    record = ProlificSubmission.objects.get()
    client.post(f"/admin/recruiting/prolificsubmission/{record.pk}/delete/", {"post": "yes"})
    assert ProlificSubmission.objects.filter(pk=record.pk).exists()
