"""The API of a project's recruiting panel: staff who may see the project read it with the study
link; staff who may change it set it, with the admin form's checks, all or nothing, audited."""

import pytest
from rest_framework.test import APIClient

from annotation.models import AuditEntry, Project
from tests.factories import ProjectFactory, UserFactory
from tests.recruiting.fake_panel import fake_panel  # noqa: F401

pytestmark = pytest.mark.django_db


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def project():
    return ProjectFactory(slug="study", external_entry=True, panel="prolific", completion_code="C-1")


def test_staff_read_the_panel_and_the_link_to_paste(project):
    body = api(UserFactory(role="researcher")).get("/api/projects/study/panel/").json()
    assert body["settings"] == {"external_entry": True, "panel": "prolific", "worker_param": "worker_id",
                                "custom_source": "link", "extra_params": "", "completion_code": "C-1",
                                "completion_url": ""}
    assert body["study_link"] == ("http://testserver/start/study/?PROLIFIC_PID={{%PROLIFIC_PID%}}"
                                  "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}")
    assert body["worker_source"] == "prolific" and body["recorded_params"] == ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"]
    assert body["completion_url_template"] == "https://app.prolific.com/submissions/complete?cc={code}"


def test_staff_set_a_custom_panel_and_the_change_is_audited(project):
    admin = UserFactory(role="admin")
    response = api(admin).patch("/api/projects/study/panel/", {
        "panel": "custom", "worker_param": "uid", "custom_source": "lab-pool", "extra_params": "wave",
        "completion_url": "https://lab.example/done?u={worker_id}&c={code}"}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["study_link"] == "http://testserver/start/study/?uid=WORKER_ID"
    assert body["worker_source"] == "lab-pool" and body["recorded_params"] == ["uid", "wave"]
    stored = Project.objects.get(slug="study")
    assert (stored.panel, stored.worker_param, stored.custom_source) == ("custom", "uid", "lab-pool")
    changed = AuditEntry.objects.get(action="settings").details["changed"]
    assert changed["panel"] == {"from": "prolific", "to": "custom"}


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"panel": "qualtrics"}, "panel", "is not a valid choice"),
    ({"panel": "custom", "custom_source": "mturk"}, "custom_source", "is a preset's name"),
    ({"completion_url": "https://x.example/?w={workerId}"}, "completion_url", "Unknown placeholders {workerId}"),
    ({"completion_url": "ftp://x.example/{code}"}, "completion_url", "https://"),
    ({"completion_url": "https://panel.example.com{PROLIFIC_PID}/done"}, "completion_url", "only after the host"),
    ({"worker_param": "a b", "panel": "custom"}, "worker_param", "parameter name"),
    ({"marketplace_sources": "prolific"}, "marketplace_sources", "Not a panel setting"),
])
def test_bad_settings_are_refused_naming_the_field_and_nothing_changes(project, body, field, words):
    response = api(UserFactory(role="admin")).patch("/api/projects/study/panel/", body, format="json")
    assert response.status_code == 400
    assert words in str(response.json()[field])
    stored = Project.objects.get(slug="study")
    assert (stored.panel, stored.completion_url, stored.custom_source) == ("prolific", "", "link")
    assert not AuditEntry.objects.filter(action="settings").exists()


def test_the_panel_is_staff_only_and_a_missing_project_is_not_found(project):
    annotator = api(UserFactory())
    assert annotator.get("/api/projects/study/panel/").status_code == 403
    assert annotator.patch("/api/projects/study/panel/", {"panel": "mturk"}, format="json").status_code == 403
    researcher = api(UserFactory(role="researcher"))
    assert researcher.patch("/api/projects/study/panel/", {"panel": "mturk"}, format="json").status_code == 403
    assert researcher.get("/api/projects/nowhere/panel/").status_code == 404
    assert APIClient().get("/api/projects/study/panel/").status_code in (401, 403)
    assert Project.objects.get(slug="study").panel == "prolific"


def test_a_project_without_a_panel_reads_as_none_and_can_be_given_one_and_lose_it():
    ProjectFactory(slug="plain")
    admin = api(UserFactory(role="admin"))
    body = admin.get("/api/projects/plain/panel/").json()
    assert body["settings"]["panel"] == "" and body["settings"]["external_entry"] is False
    assert body["study_link"] is None and body["worker_source"] is None and body["recorded_params"] == []
    refused = admin.patch("/api/projects/plain/panel/", {"external_entry": True}, format="json")
    assert refused.status_code == 400 and "panel" in refused.json()
    given = admin.patch("/api/projects/plain/panel/", {"external_entry": True, "panel": "sona"}, format="json").json()
    assert given["worker_source"] == "sona" and given["study_link"].startswith("http://testserver/start/plain/")
    taken = admin.patch("/api/projects/plain/panel/", {"external_entry": False, "panel": ""}, format="json")
    assert taken.status_code == 200 and taken.json()["study_link"] is None
    assert Project.objects.get(slug="plain").panel == ""


def test_a_panel_of_another_app_is_read_through_its_provider(fake_panel):  # noqa: F811
    ProjectFactory(slug="faked", panel="fakepanel", external_entry=True)
    body = api(UserFactory(role="researcher")).get("/api/projects/faked/panel/").json()
    assert body["worker_source"] == "fakepanel" and body["recorded_params"] == ["fake_uid"]
    assert body["study_link"] is None  # the fake panel gives no link to paste
