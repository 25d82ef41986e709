"""The audit log records project creation, every import path (items with their gold questions,
crowd results, media, arguments; page, API, job and command alike), account creation, and an
account's deletion; an entry keeps its actor's name after the account is gone."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse

from annotation.importers import ImportFailed
from annotation.models import AuditEntry, Project
from annotation.selectors.audit import audit_entries, audit_row
from annotation.services.accounts import account_delete, annotators_create, user_create
from annotation.services.imports import import_job_execute, import_upload
from annotation.services.items import items_import_file
from annotation.services.projects import project_create
from task_types.pairwise.arguments_file import parse_arguments
from task_types.pairwise.corpus import arguments_import
from tests.factories import AssignmentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

PAIRS = (
    "id,topic,prompt,stance,arg1_id,arg1_text,arg2_id,arg2_text,item_kind,gold_answer,gold_explanation\n"
    "p1,t,Prompt,yes,a,first argument,b,second argument,,,\n"
    'g1,t,Prompt,yes,c,third argument,d,fourth argument,gold,"{""label"": ""a1""}",The statistics carry it\n'
)


def entry(action: str) -> AuditEntry:
    return AuditEntry.objects.get(action=action)


def test_creating_a_project_is_recorded_with_who_and_the_type():
    boss = UserFactory(role="admin")
    project = project_create(name="Study", slug="study", task_type="pairwise", created_by=boss)
    e = entry("project_create")
    assert (e.actor, e.actor_name, e.project, e.target) == (boss, boss.username, project, "project study")
    assert e.details == {"task_type": "pairwise", "name": "Study"}


def test_a_project_made_in_the_admin_is_recorded(client):
    boss = UserFactory(role="admin", is_superuser=True)
    boss.is_superuser = True
    boss.save()
    client.force_login(boss)
    response = client.post(reverse("admin:annotation_project_add"), {
        "name": "Admin study", "slug": "admin-study", "task_type": "pairwise", "redundancy": 3, "state": "draft",
        "lease_minutes": 30, "assignment_order": "sequential", "panel": "prolific", "worker_param": "",
    })
    project = Project.objects.filter(slug="admin-study").first()
    if project is None:  # the form asks for more: its errors say which
        pytest.fail(response.content.decode()[:2000])
    assert entry("project_create").actor == boss


def test_an_item_import_through_the_page_is_recorded_with_its_gold_questions():
    project, boss = ProjectFactory(), UserFactory(role="admin")
    upload = SimpleUploadedFile("pairs.csv", PAIRS.encode())
    import_upload(project=project, kind="items", upload=upload, options={}, user=boss)
    e = entry("import:items")
    assert (e.actor, e.project, e.target) == (boss, project, "pairs.csv")
    assert e.details == {"created": 2, "updated": 0, "unchanged": 0, "gold": 1, "training": 0, "warnings": 0}


@override_settings(IMPORT_INLINE_MAX_BYTES=10)
def test_an_import_by_a_job_is_recorded_with_the_staff_member_who_started_it(django_capture_on_commit_callbacks):
    project, boss = ProjectFactory(), UserFactory(role="admin")
    outcome = import_upload(project=project, kind="items", upload=SimpleUploadedFile("pairs.csv", PAIRS.encode()),
                            options={}, user=boss)
    assert outcome.job is not None and not AuditEntry.objects.filter(action="import:items").exists()
    import_job_execute(job_id=outcome.job.pk)
    e = entry("import:items")
    assert (e.actor, e.target, e.details["created"], e.details["gold"]) == (boss, "pairs.csv", 2, 1)


def test_a_refused_import_leaves_no_entry():
    project = ProjectFactory()
    bad = PAIRS.replace("gold,", "golden,", 1)
    with pytest.raises(ImportFailed):
        import_upload(project=project, kind="items", upload=SimpleUploadedFile("bad.csv", bad.encode()), options={})
    assert not AuditEntry.objects.filter(action__startswith="import").exists()


def test_a_command_import_is_recorded_without_an_actor(tmp_path):
    project = ProjectFactory()
    path = tmp_path / "pairs.csv"
    path.write_text(PAIRS)
    call_command("import_items", project.slug, str(path), stdout=io.StringIO())
    e = entry("import:items")
    assert (e.actor, e.actor_name, e.target) == (None, "", "pairs.csv (manage.py import_items)")
    items_import_file(project=ProjectFactory(), data=PAIRS.encode(), filename="again.csv")
    assert AuditEntry.objects.filter(action="import:items").count() == 2


def test_an_arguments_import_is_recorded_without_a_project():
    boss = UserFactory(role="admin")
    rows = parse_arguments(b"arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
                           b"x1\tt1\tPrompt\tyes\tsomeone\tsome text\n")
    arguments_import(rows=rows, actor=boss, source="arguments.tsv")
    e = entry("import:arguments")
    assert (e.actor, e.project, e.target, e.details["created"]) == (boss, None, "arguments.tsv", 1)


def test_the_audit_filter_keeps_every_import_as_one_family():
    project, boss = ProjectFactory(), UserFactory(role="admin")
    import_upload(project=project, kind="items", upload=SimpleUploadedFile("pairs.csv", PAIRS.encode()), options={},
                  user=boss)
    assert [e.action for e in audit_entries(project=project, action="import")] == ["import:items"]


def test_accounts_made_for_a_project_are_recorded_one_by_one():
    project, boss = ProjectFactory(), UserFactory(role="admin")
    annotators_create(names_text="ann1\nann2", mode="password", project=project, actor=boss)
    made = AuditEntry.objects.filter(action="account_create").order_by("pk")
    assert [(e.target, e.actor, e.project) for e in made] == [("user ann1", boss, project), ("user ann2", boss, project)]
    assert made[0].details["one_time_password"] is True and made[0].details["via"] == "annotators"


def test_a_deleted_staff_account_keeps_its_name_on_its_entries_and_its_deletion_is_recorded():
    boss, other_admin = UserFactory(role="admin"), UserFactory(role="admin")
    project = project_create(name="Study", slug="study", task_type="pairwise", created_by=boss)
    name = boss.username
    account_delete(user=boss, actor=other_admin)
    made = entry("project_create")
    assert made.actor is None and audit_row(entry=made)["actor"] == name
    gone = entry("account_delete")
    assert (gone.actor, gone.target, gone.details["role"]) == (other_admin, f"user {name}", "admin")
    assert made.project == project


def test_deleting_an_account_in_the_user_admin_is_recorded(client):
    root = UserFactory(role="admin")
    root.is_superuser = True
    root.save()
    victim = user_create(username="leaver", role="researcher")
    client.force_login(root)
    response = client.post(reverse("admin:auth_user_delete", args=[victim.pk]), {"post": "yes"})
    assert response.status_code == 302
    e = entry("account_delete")
    assert (e.actor, e.actor_name, e.target) == (root, root.username, "user leaver")


def test_the_entries_answer_with_the_stored_name_in_the_api(client):
    root = UserFactory(role="admin")
    root.is_superuser = True
    root.save()
    boss = UserFactory(role="admin")
    project = project_create(name="Study", slug="study", task_type="pairwise", created_by=boss)
    name = boss.username
    account_delete(user=boss, actor=root)
    client.force_login(root)
    rows = client.get(f"/api/projects/{project.slug}/audit/").json()["entries"]
    assert [(r["action"], r["actor"]) for r in rows] == [("project_create", name)]


def test_an_account_deleted_through_the_api_is_recorded_and_keeps_its_name(client):
    root = UserFactory(role="admin")
    root.is_superuser = True
    root.save()
    victim = user_create(username="leaver", role="researcher", actor=root)
    client.force_login(root)
    assert client.delete(f"/api/workers/{victim.pk}/").status_code == 204
    made, gone = entry("account_create"), entry("account_delete")
    assert (gone.actor, gone.target) == (root, "user leaver") and made.target == "user leaver"
    assert client.delete(f"/api/workers/{victim.pk}/").status_code == 404
    assert client.delete(f"/api/workers/{root.pk}/").status_code == 400  # not oneself
    client.force_login(UserFactory(role="researcher"))
    assert client.delete(f"/api/workers/{root.pk}/").status_code == 403


def test_an_account_whose_answers_name_it_is_kept_with_a_409_and_nothing_is_written(client):
    from django.contrib.auth import get_user_model

    root = UserFactory(role="admin")
    root.is_superuser = True
    root.save()
    worker = AssignmentFactory().worker
    client.force_login(root)
    response = client.delete(f"/api/workers/{worker.pk}/")
    assert response.status_code == 409
    assert "cannot be deleted; block it instead" in response.json()["detail"]
    assert "assignments" in response.json()["detail"]
    assert get_user_model().objects.filter(pk=worker.pk).exists()
    assert not AuditEntry.objects.filter(action="account_delete").exists()


def test_pairs_generated_through_the_api_are_an_import_by_the_staff_member(client):
    boss = UserFactory(role="admin")
    boss.is_superuser = True
    boss.save()
    rows = parse_arguments(b"arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
                           + b"".join(f"x{n}\tt1\tPrompt\tyes\tsomeone\targument number {n} {'with enough words to be paired ' * 2}\n".encode() for n in range(3)))
    arguments_import(rows=rows)
    project = ProjectFactory(task_type="pairwise")
    client.force_login(boss)
    response = client.post(f"/api/projects/{project.slug}/pairs/", {"topic": "t1", "seed": 1},
                           content_type="application/json")
    assert response.status_code == 201, response.content
    e = AuditEntry.objects.get(action="import:items")
    assert (e.actor, e.project, e.target, e.details["created"]) == (boss, project, "pairs of topic t1 (seed 1)", 3)


def test_an_account_added_in_the_user_admin_is_recorded(client):
    root = UserFactory(role="admin")
    root.is_superuser = True
    root.save()
    client.force_login(root)
    form = client.get(reverse("admin:auth_user_add")).context["inline_admin_formsets"]
    management = {f"{formset.formset.prefix}-{key}": value for formset in form
                  for key, value in formset.formset.management_form.initial.items()}
    response = client.post(reverse("admin:auth_user_add"), {
        "username": "newcomer", "password1": "a-long-password-9", "password2": "a-long-password-9",
        "usable_password": "true", **management})
    assert response.status_code == 302, response.content.decode()[:3000]
    e = entry("account_create")
    assert (e.actor, e.target, e.details["via"]) == (root, "user newcomer", "admin")
