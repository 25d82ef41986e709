"""Study links of each recruiting panel: the project's panel decides which parameter carries the
worker id (a link of another panel is refused, naming both), what is kept with each answer, and
where the worker goes when done or screened out."""

from urllib.parse import urlencode

import pytest
from django.urls import reverse

from annotation.models import Annotation, WorkerProfile
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import quality_policy
from tests.recruiting.fake_panel import RETURN, fake_panel  # noqa: F401

pytestmark = pytest.mark.django_db

LINKS = {
    "prolific": ({"PROLIFIC_PID": "5f1e0a9b", "STUDY_ID": "s1", "SESSION_ID": "x9"}, "5f1e0a9b"),
    "mturk": ({"workerId": "A1B2", "assignmentId": "AS1", "hitId": "H1",
               "turkSubmitTo": "https://www.mturk.com"}, "A1B2"),
    "cloudresearch": ({"participantId": "cr-77", "assignmentId": "ca-1", "projectId": "p-1"}, "cr-77"),
    "sona": ({"id": "4711"}, "4711"),
    # A panel written only in the tests (tests/recruiting/fake_panel.py): the same arrival.
    "fakepanel": ({"fake_uid": "F-31"}, "F-31"),
}


def study(panel="prolific", **fields):
    project = ProjectFactory(open_to_all=False, external_entry=True, redundancy=1, panel=panel, **fields)
    ItemFactory(project=project)
    return project


def start(client, project, **params):
    return client.get(reverse("start", args=[project.slug]) + "?" + urlencode(params))


def finish(client, project):
    """Accept the welcome step and answer the one item: the page that says "done"."""
    client.post(reverse("welcome", args=[project.slug]), {"accept": "yes"})
    assignment = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    return client.post(reverse("submit", args=[project.slug, assignment.pk]), answer(), HTTP_HX_REQUEST="true")


@pytest.mark.parametrize("panel", sorted(LINKS))
def test_each_presets_link_is_taken_and_records_the_worker(client, panel, request):
    if panel == "fakepanel":
        request.getfixturevalue("fake_panel")
    project = study(panel)
    params, worker_id = LINKS[panel]
    response = start(client, project, **params, unrelated="kept-out")
    assert response.status_code == 302 and response.url == reverse("annotate", args=[project.slug])
    profile = WorkerProfile.objects.get(external_id=worker_id)
    assert profile.source == panel and profile.user.username == f"{panel}+{worker_id}"
    finish(client, project)
    assert Annotation.objects.get().client["marketplace"] == params  # the panel's parameters, nothing else


def test_a_cloudresearch_project_takes_participant_ids_and_refuses_prolific_links(client):
    project = study("cloudresearch")
    refused = start(client, project, PROLIFIC_PID="5f1e0a9b", STUDY_ID="s1")
    body = refused.content.decode()
    assert refused.status_code == 400
    assert "does not accept workers from Prolific (PROLIFIC_PID=…)" in body and "participantId=…" in body
    assert not WorkerProfile.objects.filter(external_id__isnull=False).exists()
    assert start(client, project, participantId="cr-1").status_code == 302
    assert WorkerProfile.objects.get(external_id="cr-1").source == "cloudresearch"


def test_a_custom_parameter_is_read_and_the_same_id_elsewhere_is_another_worker(client):
    project = study("custom", worker_param="uid", custom_source="lab-pool", extra_params="wave")
    assert start(client, project, worker_id="u1").status_code == 400
    assert start(client, project, uid="u1", wave="2", PROLIFIC_PID="u1").status_code == 302
    mine = WorkerProfile.objects.get(source="lab-pool", external_id="u1")
    finish(client, project)
    assert Annotation.objects.get().client["marketplace"] == {"uid": "u1", "wave": "2"}
    client.logout()
    start(client, study("prolific"), PROLIFIC_PID="u1")
    assert WorkerProfile.objects.get(source="prolific", external_id="u1").pk != mine.pk


def test_prolific_workers_are_sent_to_the_presets_completion_url_with_the_code(client):
    project = study("prolific", completion_code="PAY-42")
    start(client, project, PROLIFIC_PID="p1")
    body = finish(client, project).content.decode()
    assert 'href="https://app.prolific.com/submissions/complete?cc=PAY-42"' in body


def test_a_panel_known_only_by_its_provider_takes_links_and_sends_workers_back(client, fake_panel):  # noqa: F811
    project = study("fakepanel", completion_code="FK-9")
    assert start(client, project, PROLIFIC_PID="p1").status_code == 400  # another panel's link
    assert start(client, project, fake_uid="u 7").status_code == 400  # not a worker id
    assert start(client, project, fake_uid="u7").status_code == 302
    assert WorkerProfile.objects.get(external_id="u7").source == "fakepanel"
    body = finish(client, project).content.decode()
    assert f'href="{RETURN}?uid=u7&amp;code=FK-9"' in body


def test_a_project_without_a_panel_takes_no_link(client):
    project = ProjectFactory(open_to_all=False, external_entry=True, redundancy=1)
    assert project.panel == "" and start(client, project, worker_id="u1").status_code == 404
    assert not WorkerProfile.objects.filter(external_id__isnull=False).exists()


def test_mturk_workers_post_their_assignment_back_to_mturk(client):
    project = study("mturk", completion_code="MT-1")
    start(client, project, workerId="A1", assignmentId="AS7", hitId="H", turkSubmitTo="https://workersandbox.mturk.com")
    done = finish(client, project)
    body = done.content.decode()
    assert 'action="https://workersandbox.mturk.com/mturk/externalSubmit"' in body
    assert 'name="assignmentId" value="AS7"' in body
    # The page's policy lets that one form leave the site.
    assert "form-action 'self' https://workersandbox.mturk.com" in done["Content-Security-Policy"]


def test_sona_workers_get_the_credit_url_with_their_survey_code(client):
    credit = "https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=12&credit_token=ab&survey_code={worker_id}"
    project = study("sona", completion_url=credit)
    start(client, project, id="4711")
    body = finish(client, project).content.decode()
    assert 'href="https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=12&amp;credit_token=ab&amp;' \
           'survey_code=4711"' in body


def test_cloudresearch_workers_get_the_url_the_project_pasted_or_the_code(client):
    project = study("cloudresearch", completion_code="CR-CODE")
    start(client, project, participantId="c1")
    body = finish(client, project).content.decode()
    assert "CR-CODE" in body and 'data-testid="completion-link"' not in body
    project.completion_url = "https://connect.cloudresearch.com/participant/project/ABC/complete"
    project.save()
    ItemFactory(project=project)  # an item for the next worker
    client.logout()
    start(client, project, participantId="c2")
    body = finish(client, project).content.decode()
    assert 'href="https://connect.cloudresearch.com/participant/project/ABC/complete"' in body


@pytest.mark.parametrize(("panel", "params", "policy_url", "expected"), [
    ("prolific", {"PROLIFIC_PID": "p9"}, "", "https://app.prolific.com/submissions/complete?cc=SCREEN-1"),
    ("custom", {"worker_id": "w9"}, "", None),  # a custom panel has no screen-out URL of its own
    ("cloudresearch", {"participantId": "c9"}, "https://connect.cloudresearch.com/screened",
     "https://connect.cloudresearch.com/screened"),
])
def test_screened_out_workers_go_where_their_panel_takes_them(client, panel, params, policy_url, expected):
    from annotation.models import Standing
    from quality.models import WorkerStanding

    project = study(panel)
    quality_policy(project, screened_out_code="SCREEN-1", screened_out_url=policy_url)
    start(client, project, **params)
    client.post(reverse("welcome", args=[project.slug]), {"accept": "yes"})
    worker = WorkerProfile.objects.get(external_id=next(iter(params.values()))).user
    WorkerStanding.objects.update_or_create(project=project, worker=worker, defaults={"state": Standing.SCREENED_OUT})
    body = client.get(reverse("annotate", args=[project.slug])).content.decode()
    assert 'data-testid="screened-out-code">SCREEN-1<' in body
    if expected:
        assert f'href="{expected}"' in body
    else:
        assert 'data-testid="screened-out-link"' not in body
    api = client.post(f"/api/projects/{project.slug}/assignments/next/").json()
    assert api["completion_url"] == (expected or "")


def test_staff_see_the_study_link_to_paste_into_the_panel(client):
    project = study("prolific")
    client.force_login(UserFactory(role="admin", is_superuser=True))
    body = client.get(reverse("admin:annotation_project_change", args=[project.pk])).content.decode()
    assert (f"http://testserver/start/{project.slug}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&amp;STUDY_ID="
            "{{%STUDY_ID%}}&amp;SESSION_ID={{%SESSION_ID%}}") in body


def test_a_lab_account_that_finishes_a_panel_project_stays_on_the_platform(client):
    """Only panel arrivals go back to a panel: a lab account (no study link) gets the platform's
    own end page, though Prolific's completion URL needs nothing but the code."""
    project = study("prolific", completion_code="PAY-42")
    lab = UserFactory()
    project.members.add(lab)
    client.force_login(lab)
    body = finish(client, project).content.decode()
    assert "app.prolific.com" not in body and 'data-testid="completion-link"' not in body
    assert reverse("projects") in body


def test_a_screened_out_lab_account_is_not_sent_to_the_panel(client):
    from annotation.models import Standing
    from quality.models import WorkerStanding

    project = study("prolific")
    quality_policy(project, screened_out_code="SCREEN-1")
    lab = UserFactory()
    project.members.add(lab)
    client.force_login(lab)
    client.post(reverse("welcome", args=[project.slug]), {"accept": "yes"})
    WorkerStanding.objects.create(project=project, worker=lab, state=Standing.SCREENED_OUT)
    body = client.get(reverse("annotate", args=[project.slug])).content.decode()
    assert 'data-testid="screened-out"' in body and "app.prolific.com" not in body
    api = client.post(f"/api/projects/{project.slug}/assignments/next/").json()
    assert api["reason"] == "screened_out" and "completion_url" not in api
