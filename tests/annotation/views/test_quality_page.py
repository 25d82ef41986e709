"""The project's quality-control page and its settings API: who may see and change them, the
checks on every value, the audit entry of a change, and another project untouched."""

import pytest
from rest_framework.test import APIClient

from annotation.models import AuditEntry, ItemKind, Standing
from quality.models import QualityPolicy, WorkerStanding
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_admin_sees_the_counts_and_saves_the_settings_with_an_audit_entry(client):
    project = ProjectFactory()
    ItemFactory(project=project, kind=ItemKind.GOLD)
    worker = UserFactory()
    WorkerStanding.objects.create(project=project, worker=worker, state=Standing.REVIEW, reason="gold accuracy",
                                  gold_answered=4, gold_right=1)
    admin = UserFactory(role="admin")
    client.force_login(admin)
    page = client.get(f"/projects/{project.slug}/quality/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "1</b>gold questions" in html and "4</b>gold answers, 25% right" in html
    assert worker.username in html and "gold accuracy" in html
    saved = client.post(f"/projects/{project.slug}/quality/", {
        "gold_rate": "0.1", "gold_feedback": "on", "training_feedback": "after_round", "set_overlap": "masi", "set_pass": "0.5", "rubric": "within_one",
        "qualification_items": "5", "qualification_pass": "0.8", "qualification_attempts": "2",
        "screened_out_code": "SCREENED", "screened_out_url": "", "prefer_adjudicated": ""})
    assert saved.status_code == 302
    policy = QualityPolicy.objects.get(project=project)
    assert policy.training_feedback == "after_round"
    # A pairwise project is offered no set-overlap or rubric setting: what a client posts for them is not read.
    assert (policy.gold_rate, policy.gold_feedback, policy.set_overlap, policy.qualification_items) == (0.1, True, "jaccard", 5)
    entry = AuditEntry.objects.get(project=project, action="settings")
    assert entry.actor == admin and entry.details["changed"]["gold_rate"] == [0.0, 0.1]


def test_a_rate_out_of_range_is_refused_naming_the_field(client):
    project = ProjectFactory()
    client.force_login(UserFactory(role="admin"))
    page = client.post(f"/projects/{project.slug}/quality/", {
        "gold_rate": "0.9", "set_overlap": "jaccard", "set_pass": "0.5", "rubric": "exact",
        "qualification_items": "0", "qualification_pass": "0.8", "qualification_attempts": "2"})
    assert page.status_code == 200
    assert "gold_rate" in page.context["form"].errors
    assert not QualityPolicy.objects.filter(project=project).exists()


def test_researchers_read_the_settings_but_cannot_change_them(client):
    project = ProjectFactory()
    client.force_login(UserFactory(role="researcher"))
    assert client.get(f"/projects/{project.slug}/quality/").status_code == 200
    assert client.post(f"/projects/{project.slug}/quality/", {"gold_rate": "0.1"}).status_code == 403
    assert not QualityPolicy.objects.filter(project=project).exists()


def test_annotators_get_no_access(client):
    project = ProjectFactory()
    client.force_login(UserFactory())
    assert client.get(f"/projects/{project.slug}/quality/").status_code == 403


def test_api_reads_and_patches_the_settings_of_one_project_only():
    project, other = ProjectFactory(), ProjectFactory()
    c = APIClient()
    c.force_authenticate(UserFactory(role="admin"))
    got = c.get(f"/api/projects/{project.slug}/quality/")
    assert got.status_code == 200 and got.json()["settings"]["gold_rate"] == 0.0
    patched = c.patch(f"/api/projects/{project.slug}/quality/", {"gold_rate": 0.05, "gold_feedback": True}, format="json")
    assert patched.status_code == 200 and patched.json()["settings"]["gold_rate"] == 0.05
    assert not QualityPolicy.objects.filter(project=other).exists()
    bad = c.patch(f"/api/projects/{project.slug}/quality/", {"gold_rate": "lots", "colour": "red"}, format="json")
    assert bad.status_code == 400 and set(bad.json()) == {"colour"}
    bad = c.patch(f"/api/projects/{project.slug}/quality/", {"qualification_pass": 2}, format="json")
    assert bad.status_code == 400 and "qualification_pass" in bad.json()
    assert QualityPolicy.objects.get(project=project).qualification_pass == 0.8
    assert c.patch("/api/projects/no-such-project/quality/", {"gold_rate": 0.1}, format="json").status_code == 404


def test_api_refuses_researchers_a_change():
    project = ProjectFactory()
    c = APIClient()
    c.force_authenticate(UserFactory(role="researcher"))
    assert c.get(f"/api/projects/{project.slug}/quality/").status_code == 200
    assert c.patch(f"/api/projects/{project.slug}/quality/", {"gold_rate": 0.1}, format="json").status_code == 403


def test_send_everyone_to_training_opens_a_round_for_each_worker_who_can_take_one(client):
    from quality.models import TrainingRound
    from tests.quality_factories import check_item

    project = ProjectFactory()
    check_item(project, kind=ItemKind.TRAINING)
    ready, blocked = UserFactory(), UserFactory()
    WorkerStanding.objects.create(project=project, worker=ready, state=Standing.ACTIVE)
    WorkerStanding.objects.create(project=project, worker=blocked, state=Standing.BLOCKED)
    client.force_login(UserFactory(role="admin"))
    page = client.post(f"/projects/{project.slug}/quality/training/", {"note": "new guidelines"}, follow=True)
    assert "1 worker sent to a training round." in page.content.decode()
    assert list(TrainingRound.objects.filter(project=project).values_list("worker", "kind", "note")) == [
        (ready.pk, "recalibration", "new guidelines")]
    assert AuditEntry.objects.get(project=project, action="send_to_training").details["rounds"] == 1
    # Again: everyone who could is in a round already.
    page = client.post(f"/projects/{project.slug}/quality/training/", {"note": ""}, follow=True)
    assert "No worker was sent" in page.content.decode()


def test_researchers_cannot_send_everyone_to_training(client):
    project = ProjectFactory()
    client.force_login(UserFactory(role="researcher"))
    assert client.post(f"/projects/{project.slug}/quality/training/").status_code == 403


def test_api_sends_everyone_to_training_in_one_project_only():
    from quality.models import TrainingRound
    from tests.quality_factories import check_item

    project, other = ProjectFactory(), ProjectFactory()
    for p in (project, other):
        check_item(p, kind=ItemKind.TRAINING)
    worker = UserFactory()
    for p in (project, other):
        WorkerStanding.objects.create(project=p, worker=worker, state=Standing.ACTIVE)
    c = APIClient()
    c.force_authenticate(UserFactory(role="admin"))
    sent = c.post(f"/api/projects/{project.slug}/training/", {"note": "again"}, format="json")
    assert sent.status_code == 200 and sent.json() == {"rounds_opened": 1}
    assert list(TrainingRound.objects.values_list("project", flat=True)) == [project.pk]
    assert c.post(f"/api/projects/{project.slug}/training/", {"note": 3}, format="json").status_code == 400
    researcher = APIClient()
    researcher.force_authenticate(UserFactory(role="researcher"))
    assert researcher.post(f"/api/projects/{other.slug}/training/", {}, format="json").status_code == 403
    assert TrainingRound.objects.filter(project=other).count() == 0


def test_api_promotes_unanimous_items_in_one_project_only():
    from annotation.models import Annotation, Assignment, Item
    from quality.models import GoldAnswer
    from tests.factories import AssignmentFactory

    project, other = ProjectFactory(redundancy=1), ProjectFactory(redundancy=1)
    for p in (project, other):
        a = AssignmentFactory(item=ItemFactory(project=p), status=Assignment.Status.SUBMITTED)
        Annotation.objects.create(assignment=a, answer={"label": "a1", "standpoint": "none"})
    c = APIClient()
    c.force_authenticate(UserFactory(role="admin"))
    assert c.post(f"/api/projects/{project.slug}/gold/promote/", {"limit": "x"}, format="json").status_code == 400
    refused = c.post(f"/api/projects/{project.slug}/gold/promote/", {"posterior": 0.5}, format="json")
    assert refused.status_code == 400 and "agreement analysis" in refused.json()["detail"]
    done = c.post(f"/api/projects/{project.slug}/gold/promote/", {}, format="json")
    assert done.status_code == 200 and done.json() == {"promoted": 1}
    assert list(Item.objects.filter(kind=ItemKind.GOLD).values_list("project", flat=True)) == [project.pk]
    assert GoldAnswer.objects.get().answer == {"label": "a1"}
    researcher = APIClient()
    researcher.force_authenticate(UserFactory(role="researcher"))
    assert researcher.post(f"/api/projects/{other.slug}/gold/promote/", {}, format="json").status_code == 403


def test_the_training_feedback_is_a_setting_of_the_page_and_the_api_and_a_bad_one_is_named(client):
    project = ProjectFactory()
    admin = UserFactory(role="admin")
    client.force_login(admin)
    page = client.get(f"/projects/{project.slug}/quality/").content.decode()
    assert 'name="training_feedback"' in page and "After each item: only whether it was right" in page
    c = APIClient()
    c.force_authenticate(admin)
    assert c.get(f"/api/projects/{project.slug}/quality/").json()["settings"]["training_feedback"] == "right_wrong"
    patched = c.patch(f"/api/projects/{project.slug}/quality/", {"training_feedback": "after_each"}, format="json")
    assert patched.status_code == 200 and patched.json()["settings"]["training_feedback"] == "after_each"
    bad = c.patch(f"/api/projects/{project.slug}/quality/", {"training_feedback": "never"}, format="json")
    assert bad.status_code == 400 and "training_feedback" in bad.json()
    assert QualityPolicy.objects.get(project=project).training_feedback == "after_each"


@pytest.mark.parametrize(("task_type", "offered", "hidden"), [
    ("pairwise", [], ["set_overlap", "set_pass", "rubric"]),
    ("key_points", ["set_overlap", "set_pass"], ["rubric"]),
    ("comprehension", ["set_overlap", "set_pass"], ["rubric"]),
    ("response_scoring", ["rubric"], ["set_overlap", "set_pass"]),
])
def test_each_type_is_offered_only_the_scoring_settings_it_reads(client, task_type, offered, hidden):
    project = ProjectFactory(task_type=task_type)
    client.force_login(UserFactory(role="admin"))
    html = client.get(f"/projects/{project.slug}/quality/").content.decode()
    for name in offered:
        assert f'name="{name}"' in html
    for name in hidden:
        assert f'name="{name}"' not in html
    assert 'name="gold_rate"' in html
    settings = client.get(f"/api/projects/{project.slug}/quality/").json()["settings"]
    assert set(offered) <= set(settings) and not set(hidden) & set(settings)


def test_the_api_refuses_a_setting_the_type_does_not_read_naming_it(client):
    project = ProjectFactory(task_type="pairwise")
    client.force_login(UserFactory(role="admin"))
    response = client.patch(f"/api/projects/{project.slug}/quality/", {"gold_rate": 0.1, "rubric": "within_one"},
                            content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"rubric": ["does not apply to a Pairwise convincingness project: its gold answers are "
                                          "no rubric scores"]}
    assert not QualityPolicy.objects.filter(project=project, gold_rate=0.1).exists()
