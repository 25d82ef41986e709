"""Annotator accounts: bulk creation, invites, one-time passwords, join codes, marketplace links."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse

from annotation.importers import ImportFailed
from annotation.models import Assignment, WorkerProfile
from annotation.services.accounts import (
    AccountError,
    annotators_create,
    invite_accept,
    project_join,
    role_set,
)
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()


def test_roles_map_to_groups_and_permissions():
    researcher = UserFactory(role="researcher")
    admin = UserFactory(role="admin")
    annotator = UserFactory()
    assert researcher.is_staff and admin.is_staff and not annotator.is_staff
    assert researcher.has_perm("annotation.view_project") and researcher.has_perm("annotation.export_annotations")
    assert not researcher.has_perm("annotation.add_item")
    assert admin.has_perm("annotation.add_item") and admin.has_perm("auth.add_user")
    assert not annotator.has_perm("annotation.view_project")
    # Every app of the platform's own, quality control's too; none of the libraries'.
    assert admin.has_perm("quality.add_qualityrule") and admin.has_perm("pairwise.add_argument")
    assert researcher.has_perm("quality.view_workerstanding") and not researcher.has_perm("quality.change_workerstanding")
    assert not admin.has_perm("authtoken.add_token") and not admin.has_perm("axes.delete_accessattempt")
    assert set(Group.objects.values_list("name", flat=True)) >= {"admin", "researcher", "annotator"}
    with pytest.raises(AccountError, match="unknown role 'boss'"):
        role_set(user=annotator, role="boss")


def test_bulk_invites_are_one_time_links():
    project = ProjectFactory(open_to_all=False)
    created = annotators_create(names_text="alice\n\n bob \n", mode="invite", project=project)
    assert [a.username for a in created] == ["alice", "bob"]
    assert all(a.invite_token and a.password is None for a in created)
    alice = User.objects.get(username="alice")
    assert not alice.has_usable_password() and project.members.filter(pk=alice.pk).exists()
    user = invite_accept(token=created[0].invite_token, password="a-long-passphrase-1")
    assert user.check_password("a-long-passphrase-1")
    with pytest.raises(AccountError, match="already used"):
        invite_accept(token=created[0].invite_token, password="another-passphrase-2")


def test_bulk_passwords_must_be_changed_at_first_login(client):
    created = annotators_create(names_text="carol", mode="password")
    # Through the login page: the lockout backend checks every login against its request.
    login = client.post(reverse("login"), {"username": "carol", "password": created[0].password})
    assert login.status_code == 302
    response = client.get(reverse("projects"))
    assert response.status_code == 302 and response.url == reverse("password_change")
    response = client.post(reverse("password_change"), {
        "old_password": created[0].password, "new_password1": "Correct-Horse-77", "new_password2": "Correct-Horse-77"})
    assert response.status_code == 302
    assert not WorkerProfile.objects.get(user__username="carol").must_change_password
    assert client.get(reverse("projects")).status_code == 200


def test_bulk_creation_is_all_or_nothing_and_names_the_line():
    UserFactory(username="dave")
    with pytest.raises(ImportFailed) as exc:
        annotators_create(names_text="erin\nDave\nbad name\nerin", mode="invite")
    assert [str(e) for e in exc.value.errors] == [
        "line 2, field 'name': 'Dave' already has an account",
        "line 3, field 'name': 'bad name' may only hold letters, digits and @ . + - _",
        "line 4, field 'name': 'erin' is repeated (first on line 1)",
    ]
    assert not User.objects.filter(username="erin").exists()


def test_names_that_already_have_an_account_become_members_of_the_project():
    project = ProjectFactory(open_to_all=False)
    grace = UserFactory(username="Grace")
    grace_password = grace.password
    result = annotators_create(names_text="grace\nheidi", mode="password", project=project)
    assert [(a.username, a.existing) for a in result] == [("Grace", True), ("heidi", False)]
    # The existing account keeps its password: nothing to hand out for it.
    assert result[0].password is None and result[0].invite_token is None and result[1].password
    grace.refresh_from_db()
    assert grace.password == grace_password
    assert set(project.members.values_list("username", flat=True)) == {"Grace", "heidi"}
    # Again: both are members already, nothing new is made.
    again = annotators_create(names_text="heidi", mode="invite", project=project)
    assert again[0].existing and not again[0].invite_token
    assert User.objects.filter(username__iexact="heidi").count() == 1


def test_the_create_annotators_page_lists_existing_accounts_as_added(client):
    project = ProjectFactory(open_to_all=False)
    UserFactory(username="ivan")
    client.force_login(UserFactory(role="admin"))
    url = reverse("admin:annotation_project_annotators", args=[project.pk])
    body = client.post(url, {"names": "ivan\njudy", "mode": "invite"}).content.decode()
    assert "1 account created" in body and "1 existing account added to the project" in body
    assert project.members.filter(username="ivan").exists()


def test_invite_page_sets_password_and_logs_in(client):
    project = ProjectFactory(open_to_all=False)
    ItemFactory(project=project)
    token = annotators_create(names_text="frank", mode="invite", project=project)[0].invite_token
    url = reverse("invite", args=[token])
    assert client.get(url).status_code == 200
    response = client.post(url, {"new_password1": "Correct-Horse-77", "new_password2": "Correct-Horse-77"})
    assert response.url == reverse("annotate", args=[project.slug])
    assert client.get(response.url).context["assignment"] is not None
    assert client.get(url).status_code == 404


def test_join_code(client):
    project = ProjectFactory(open_to_all=False, join_code="JOIN-ME")
    worker = UserFactory()
    with pytest.raises(AccountError):
        project_join(code="nope", worker=worker)
    client.force_login(worker)
    response = client.post(reverse("join"), {"code": "JOIN-ME"})
    assert response.url == reverse("annotate", args=[project.slug])
    assert project.members.filter(pk=worker.pk).exists()


def test_join_codes_are_case_insensitive(client):
    project = ProjectFactory(open_to_all=False, join_code="Debate-2024")
    worker = UserFactory()
    assert project_join(code="  debate-2024 ", worker=worker) == project
    assert project_join(code="DEBATE-2024", worker=worker) == project
    assert project.members.filter(pk=worker.pk).exists()


def test_two_projects_cannot_share_a_join_code_in_another_case():
    from django.db import IntegrityError, transaction

    ProjectFactory(join_code="Debate-2024")
    with pytest.raises(IntegrityError), transaction.atomic():
        ProjectFactory(join_code="DEBATE-2024")


def test_the_project_form_refuses_a_join_code_taken_in_another_case(client):
    ProjectFactory(join_code="Debate-2024")
    other = ProjectFactory()
    client.force_login(UserFactory(role="admin"))
    url = reverse("admin:annotation_project_change", args=[other.pk])
    form = client.get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and not isinstance(v, (list, dict))}
    data.update(join_code="debate-2024", members=[], options="{}")
    response = client.post(url, data)
    assert response.status_code == 200 and "join code" in response.content.decode().lower()
    other.refresh_from_db()
    assert other.join_code != "debate-2024"


def test_marketplace_worker_gets_and_resumes_an_account(client):
    project = ProjectFactory(open_to_all=False, external_entry=True, panel="prolific", completion_code="XJ42", redundancy=1)
    ItemFactory(project=project)
    url = reverse("start", args=[project.slug])
    response = client.get(url, {"PROLIFIC_PID": "5f1e0a9b", "STUDY_ID": "s1"})
    assert response.url == reverse("annotate", args=[project.slug])
    profile = WorkerProfile.objects.get(external_id="5f1e0a9b")
    assert profile.source == "prolific"
    # The first visit shows the welcome step; accepting it leads to the first item.
    assert client.get(response.url).url == reverse("welcome", args=[project.slug])
    client.post(reverse("welcome", args=[project.slug]), {"accept": "yes"})
    page = client.get(response.url)
    assignment = page.context["assignment"]
    client.post(reverse("submit", args=[project.slug, assignment.pk]), answer())
    # The same link later, from another browser: the same account, and the completion code.
    other = client_class_login(url, {"PROLIFIC_PID": "5f1e0a9b"})
    done = other.get(reverse("annotate", args=[project.slug]))
    assert done.context["result"].reason == "done"
    assert b"XJ42" in done.content
    assert WorkerProfile.objects.filter(external_id="5f1e0a9b").count() == 1
    ann = Assignment.objects.get(pk=assignment.pk).annotation
    assert ann.client["marketplace"] == {"STUDY_ID": "s1", "PROLIFIC_PID": "5f1e0a9b"}


def client_class_login(url, params):
    from django.test import Client

    c = Client()
    c.get(url, params)
    return c


def test_marketplace_links_refused_when_off_or_malformed(client):
    closed = ProjectFactory(external_entry=False)
    # A project closed to marketplace links looks like one that does not exist.
    assert client.get(reverse("start", args=[closed.slug]), {"workerId": "A1B2"}).status_code == 404
    open_ = ProjectFactory(external_entry=True, panel="mturk")
    assert client.get(reverse("start", args=[open_.slug]), {"workerId": "<script>"}).status_code == 400
    assert client.get(reverse("start", args=[open_.slug])).status_code == 400
    response = client.get(reverse("start", args=[open_.slug]), {"workerId": "A1B2C3"})
    assert response.status_code == 302
    assert WorkerProfile.objects.get(external_id="A1B2C3").source == "mturk"
