"""The study's API: the link (the token shown only as configured), sync now, the submissions with
each participant's work, approving and rejecting one or many, under the project's staff
permissions; another project's submission ids are 404 and change nothing."""

import pytest
from rest_framework.test import APIClient

from annotation.models import AuditEntry
from annotation.services import annotation_submit, assignment_next
from recruiting.models import ProlificStudy, ProlificSubmission, ProlificSyncJob
from recruiting.services.prolific.sync import prolific_submissions_sync
from task_types.pairwise.tests.factories import answer
from tests.factories import ProjectFactory, UserFactory
from tests.recruiting.prolific_helpers import RIGHT, arrive, linked_project
from tests.support.fake_prolific_submissions import participant_set

pytestmark = pytest.mark.django_db
REASON = "The answers show that the instructions were not followed: most items were answered the same way. " * 2


def api(user=None):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def base(project):
    return f"/api/projects/{project.slug}/prolific/"


def completed(fake, project, pid):
    sid, worker = arrive(fake, project, pid)
    a = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=a, worker=worker, data=answer(label=RIGHT))
    participant_set(fake, sid, "AWAITING REVIEW")
    prolific_submissions_sync(study=project.prolific_study)
    return sid, worker


def test_linking_shows_only_whether_a_token_is_configured(fake_prolific):
    project = ProjectFactory()
    admin = api(UserFactory(role="admin"))
    assert admin.get(base(project)).status_code == 404
    bad = admin.put(base(project), {"poll_seconds": 5}, format="json")
    assert bad.status_code == 400 and "study_id" in bad.json()
    linked = admin.put(base(project), {"study_id": "s-77", "poll_seconds": 30, "auto_approve": True}, format="json")
    assert linked.status_code == 200, linked.content
    body = linked.json()
    assert body["study_id"] == "s-77" and body["token_configured"] is True and body["last_polled_at"] is None
    assert fake_prolific.token not in linked.content.decode()
    assert ProlificStudy.objects.get(project=project).auto_approve is True
    assert AuditEntry.objects.filter(action="prolific_link", project=project).exists()
    taken = admin.put(base(ProjectFactory()), {"study_id": "s-77"}, format="json")
    assert taken.status_code == 400 and "study_id" in taken.json()


def test_researchers_read_and_cannot_change(fake_prolific):
    project = linked_project()
    completed(fake_prolific, project, "pid-1")
    researcher = api(UserFactory(role="researcher"))
    assert researcher.get(base(project)).status_code == 200
    rows = researcher.get(base(project) + "submissions/").json()["submissions"]
    assert [(r["participant_id"], r["status"], r["answers"]) for r in rows] == [("pid-1", "AWAITING REVIEW", 1)]
    assert researcher.put(base(project), {"poll_seconds": 99}, format="json").status_code == 403
    assert researcher.post(base(project) + "sync/").status_code == 403
    sid = rows[0]["submission_id"]
    assert researcher.post(base(project) + f"submissions/{sid}/approve/").status_code == 403
    assert api().get(base(project)).status_code in (401, 403)
    assert fake_prolific.submissions[sid]["status"] == "AWAITING REVIEW"


def test_sync_now_queues_a_job(fake_prolific):
    project = linked_project()
    answer_ = api(UserFactory(role="admin")).post(base(project) + "sync/")
    assert answer_.status_code == 202 and answer_.json()["status"] == "queued"
    assert ProlificSyncJob.objects.filter(study=project.prolific_study).count() == 1


def test_another_projects_submission_is_404_and_nothing_changes(fake_prolific):
    mine, theirs = linked_project(study_id="mine"), linked_project(study_id="theirs")
    my_sid, _ = completed(fake_prolific, mine, "pid-1")
    their_sid, _ = completed(fake_prolific, theirs, "pid-2")
    admin = api(UserFactory(role="admin"))
    assert admin.post(base(mine) + f"submissions/{their_sid}/approve/").status_code == 404
    bulk = admin.post(base(mine) + "submissions/decide/", {"action": "approve", "submissions": [my_sid, their_sid]},
                      format="json")
    assert bulk.status_code == 404
    assert {s["status"] for s in fake_prolific.submissions.values()} == {"AWAITING REVIEW"}
    assert fake_prolific.count("POST", r"submissions/.*") == 0
    assert set(ProlificSubmission.objects.values_list("status", flat=True)) == {"AWAITING REVIEW"}


def test_bulk_approve_and_single_reject(fake_prolific):
    project = linked_project(items=3)
    first, _ = completed(fake_prolific, project, "pid-1")
    second, _ = completed(fake_prolific, project, "pid-2")
    third, bad = completed(fake_prolific, project, "pid-3")
    admin = api(UserFactory(role="admin"))
    done = admin.post(base(project) + "submissions/decide/", {"action": "approve", "submissions": [first, second]},
                      format="json")
    assert done.status_code == 200 and sorted(done.json()["decided"]) == sorted([first, second])
    assert fake_prolific.count("POST", r"submissions/bulk-approve/") == 1
    short = admin.post(base(project) + f"submissions/{third}/reject/",
                       {"message": "too short", "rejection_category": "LOW_EFFORT"}, format="json")
    assert short.status_code == 400 and "message" in short.json()
    rejected = admin.post(base(project) + f"submissions/{third}/reject/",
                          {"message": REASON, "rejection_category": "FAILED_INSTRUCTIONS"}, format="json")
    assert rejected.status_code == 200, rejected.content
    assert fake_prolific.submissions[third]["status"] == "REJECTED"
    # The platform rejects the worker's answers alike; the audit entry keeps the reason.
    assert set(bad.assignments.values_list("status", flat=True)) == {"rejected"}
    entry = AuditEntry.objects.get(action="prolific_reject")
    assert entry.details["rejection_category"] == "FAILED_INSTRUCTIONS" and entry.actor is not None
    again = admin.post(base(project) + f"submissions/{third}/approve/")
    assert again.status_code == 400 and "status" in again.json()


def test_a_marketplace_error_on_a_decision_is_a_clear_400(fake_prolific):
    project = linked_project()
    sid, _ = completed(fake_prolific, project, "pid-1")
    fake_prolific.failures[("POST", r"submissions/.*/transition/")] = 500
    answer_ = api(UserFactory(role="admin")).post(base(project) + f"submissions/{sid}/approve/")
    assert answer_.status_code == 400 and "Prolific refused" in answer_.json()["prolific"]
    record = ProlificSubmission.objects.get(submission_id=sid)
    assert record.status == "AWAITING REVIEW" and "500" in record.last_error


def test_the_worker_api_shows_the_submission(fake_prolific):
    project = linked_project()
    sid, worker = completed(fake_prolific, project, "pid-1")
    body = api(UserFactory(role="admin")).get(f"/api/projects/{project.slug}/workers/{worker.pk}/").json()
    assert body["prolific"]["submission_id"] == sid and body["prolific"]["status"] == "AWAITING REVIEW"
