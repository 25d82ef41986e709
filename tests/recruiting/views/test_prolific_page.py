"""The project's Prolific page: linking, the token shown only as configured, sync now, the
submissions with each participant's work, and deciding from the page under its permissions."""

import pytest

from annotation.services import annotation_submit, assignment_next
from recruiting.models import ProlificStudy, ProlificSyncJob
from recruiting.services.prolific.sync import prolific_submissions_sync, prolific_sync_job_execute
from task_types.pairwise.tests.factories import answer
from tests.factories import ProjectFactory, UserFactory
from tests.recruiting.prolific_helpers import RIGHT, arrive, linked_project
from tests.support.fake_prolific_submissions import participant_set

pytestmark = pytest.mark.django_db


def page(project):
    return f"/projects/{project.slug}/prolific/"


def test_staff_link_a_study_and_never_see_the_token(client, fake_prolific):
    project = ProjectFactory()
    client.force_login(UserFactory(role="admin"))
    assert "not linked" in client.get(page(project)).content.decode()
    client.post(page(project) + "link/", {"study_id": "s-1", "poll_seconds": "30", "auto_approve": "on"})
    study = ProlificStudy.objects.get(project=project)
    assert (study.study_id, study.poll_seconds, study.auto_approve, study.auto_reject) == ("s-1", 30, True, False)
    html = client.get(page(project)).content.decode()
    assert 'data-testid="token">configured' in html and fake_prolific.token not in html
    client.post(page(project) + "sync/")
    assert ProlificSyncJob.objects.filter(study=study).exists()
    refused = client.post(page(project) + "link/", {"study_id": "bad id!", "poll_seconds": "5"}, follow=True)
    assert "Nothing was changed" in refused.content.decode()


def test_researchers_see_the_submissions_and_cannot_decide(client, fake_prolific):
    project = linked_project()
    sid, worker = arrive(fake_prolific, project, "pid-1")
    annotation_submit(assignment=assignment_next(project=project, worker=worker).assignment, worker=worker,
                      data=answer(label=RIGHT))
    participant_set(fake_prolific, sid, "AWAITING REVIEW")
    prolific_submissions_sync(study=project.prolific_study)
    client.force_login(UserFactory(role="researcher"))
    html = client.get(page(project)).content.decode()
    assert f'data-submission="{sid}"' in html and "Awaiting review" in html and worker.username in html
    assert client.post(page(project) + "approve/", {"submission": [sid]}).status_code == 403
    assert fake_prolific.submissions[sid]["status"] == "AWAITING REVIEW"


def test_admins_approve_from_the_page_and_other_projects_ids_are_404(client, fake_prolific):
    project, other = linked_project(study_id="a"), linked_project(study_id="b")
    sid, worker = arrive(fake_prolific, project, "pid-1")
    other_sid, _ = arrive(fake_prolific, other, "pid-2")
    annotation_submit(assignment=assignment_next(project=project, worker=worker).assignment, worker=worker,
                      data=answer(label=RIGHT))
    participant_set(fake_prolific, sid, "AWAITING REVIEW")
    participant_set(fake_prolific, other_sid, "AWAITING REVIEW")
    prolific_submissions_sync(study=project.prolific_study)
    prolific_submissions_sync(study=other.prolific_study)
    client.force_login(UserFactory(role="admin"))
    assert client.post(page(project) + "approve/", {"submission": [other_sid]}).status_code == 404
    nothing = client.post(page(project) + "approve/", {}, follow=True)
    assert "select the submissions first" in nothing.content.decode()
    assert fake_prolific.submissions[other_sid]["status"] == "AWAITING REVIEW"
    client.post(page(project) + "approve/", {"submission": [sid]})
    assert fake_prolific.submissions[sid]["status"] == "APPROVED"
    worker_page = client.get(f"/projects/{project.slug}/workers/{worker.pk}/").content.decode()
    assert 'data-testid="prolific-status">Approved' in worker_page


def test_a_participant_who_returned_is_told_their_place_ended(client, fake_prolific):
    project = linked_project()
    sid, _ = arrive(fake_prolific, project, "pid-1", client=client)
    assert client.get(f"/projects/{project.slug}/annotate/").context["assignment"] is not None
    participant_set(fake_prolific, sid, "RETURNED")
    prolific_submissions_sync(study=project.prolific_study)
    html = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    assert 'data-testid="left-study"' in html
    body = client.post(f"/api/projects/{project.slug}/assignments/next/").json()
    assert body["assignment"] is None and body["reason"] == "left_study"


def test_a_failed_sync_is_shown_on_the_page_not_a_500(client, fake_prolific):
    project = linked_project()
    fake_prolific.failures[("GET", r"submissions/")] = 401
    job = ProlificSyncJob.objects.create(study=project.prolific_study)
    prolific_sync_job_execute(job_id=job.pk)
    client.force_login(UserFactory(role="admin"))
    response = client.get(page(project))
    assert response.status_code == 200 and "refused the API token" in response.content.decode()
