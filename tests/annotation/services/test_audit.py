"""Every staff action is in the audit log with who, what and the details: reviews (one entry per
batch, with the note), blocks, bonuses granted, removed and marked paid, exports, analysis runs
and project settings; actions by the platform itself (a task type's bonus) are not."""

import csv
import io
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from analysis.models import AnalysisRun
from analysis.services import analysis_run_cancel, analysis_run_create, analysis_run_restart
from annotation.models import Annotation, Assignment, AuditEntry, Project
from annotation.services import assignment_review, assignments_review, worker_block
from annotation.services.projects import project_settings_record
from annotation.services.review import worker_work_reject
from annotation.services.workers import worker_unblock
from recruiting.models import Bonus
from recruiting.services.bonuses import bonus_grant, bonus_remove, bonuses_mark_paid
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


def submitted(project, worker=None):
    a = AssignmentFactory(item=ItemFactory(project=project), worker=worker or UserFactory(), status=S.SUBMITTED,
                          submitted_at=timezone.now())
    Annotation.objects.create(assignment=a, answer={"label": "a1", "standpoint": "none"}, reason="r" * 30, seconds=3)
    return a


def actions():
    return list(AuditEntry.objects.order_by("pk").values_list("action", flat=True))


def test_a_review_keeps_its_note_and_who_decided():
    project, boss = ProjectFactory(), UserFactory(role="admin")
    a = submitted(project)
    assignment_review(assignment=a, approve=False, note="  copied\nreason ", reviewer=boss)
    a.refresh_from_db()
    assert (a.status, a.review_note) == (S.REJECTED, "copied reason")
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.actor, entry.project, entry.target) == ("reject", boss, project, f"assignment {a.pk}")
    assert entry.details == {"note": "copied reason", "worker": a.worker_id, "item": a.item_id}


def test_a_batch_is_one_entry_per_project():
    one, two, boss = ProjectFactory(), ProjectFactory(), UserFactory(role="admin")
    work = [submitted(one), submitted(one), submitted(two)]
    outcome = assignments_review(assignments=work, approve=True, note="fine", reviewer=boss)
    assert outcome.reviewed == 3
    entries = {e.project_id: e for e in AuditEntry.objects.all()}
    assert entries[one.pk].details["assignments"] == 2 and entries[two.pk].details["assignments"] == 1
    assert sorted(entries[one.pk].details["assignment_ids"]) == sorted([work[0].pk, work[1].pk])
    assert set(Assignment.objects.values_list("review_note", flat=True)) == {"fine"}


def test_rejecting_a_workers_work_is_one_entry():
    project, boss, worker = ProjectFactory(), UserFactory(role="admin"), UserFactory()
    for _ in range(3):
        submitted(project, worker)
    assert worker_work_reject(project=project, worker=worker, note="spam", reviewer=boss) == 3
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.details["assignments"], entry.details["worker"]) == ("reject", 3, worker.pk)


def test_block_unblock_and_bonuses():
    project, boss, worker = ProjectFactory(), UserFactory(role="admin"), UserFactory()
    worker_block(worker=worker, reason="bot", actor=boss)
    worker_unblock(worker=worker, actor=boss)
    bonus = bonus_grant(project=project, worker=worker, amount="1.00", reason="good", actor=boss)
    other = bonus_grant(project=project, worker=worker, amount="2.00", reason="also good", actor=boss)
    bonuses_mark_paid(bonuses=[other], note="batch 1", actor=boss)
    bonus_remove(bonus=bonus, actor=boss)
    with pytest.raises(ValueError, match="paid"):
        bonus_remove(bonus=other, actor=boss)
    assert actions() == ["block", "unblock", "bonus", "bonus", "bonus:paid", "bonus:remove"]
    assert list(Bonus.objects.values_list("pk", flat=True)) == [other.pk]
    paid = AuditEntry.objects.get(action="bonus:paid")
    assert paid.details == {"bonuses": [other.pk], "note": "batch 1"} and paid.project == project


def test_the_platforms_own_actions_are_not_staff_actions():
    project, worker = ProjectFactory(), UserFactory()
    bonus_grant(project=project, worker=worker, amount="1", reason="task type's bonus")
    worker_block(worker=worker)
    assert not AuditEntry.objects.exists()


def test_analysis_runs_reruns_and_cancels(annotated_project):
    boss = UserFactory(role="admin")
    run = analysis_run_create(project=annotated_project, kind="agreement", user=boss, enqueue=False)
    analysis_run_cancel(run=run, user=boss)
    analysis_run_restart(run=run, user=boss)
    analysis_run_create(project=annotated_project, kind="agreement", enqueue=False)  # the command line
    assert actions() == ["analysis:run", "analysis:cancel", "analysis:rerun"]
    assert set(AuditEntry.objects.values_list("target", flat=True)) == {f"agreement run {run.pk}"}
    assert AnalysisRun.objects.count() == 2


def test_settings_changes_list_each_field_before_and_after():
    boss = UserFactory(role="admin")
    project = ProjectFactory(lease_minutes=30, options={"min_reason": 30})
    before = Project.objects.get(pk=project.pk)
    project.lease_minutes, project.options = 45, {"min_reason": 20, "new": True}
    assert project_settings_record(actor=boss, before=before, after=project).details == {"changed": {
        "lease_minutes": {"from": 30, "to": 45},
        "options.min_reason": {"from": 30, "to": 20},
        "options.new": {"from": None, "to": True}}}
    assert project_settings_record(actor=boss, before=project, after=project) is None


def test_the_admin_records_settings_reviews_blocks_and_bonuses(client):
    from tests.annotation.admin.test_project_options_save import _post_data

    boss = UserFactory(role="admin", is_superuser=True)
    client.force_login(boss)
    project = ProjectFactory()
    url = reverse("admin:annotation_project_change", args=[project.pk])
    data = _post_data(client.get(url))
    data["lease_minutes"] = "55"
    assert client.post(url, data).status_code == 302
    settings = AuditEntry.objects.get(action="settings")
    assert settings.details["changed"]["lease_minutes"]["to"] == 55 and settings.actor == boss
    a = submitted(project)
    client.post(reverse("admin:annotation_assignment_changelist"),
                {"action": "reject", "_selected_action": [a.pk], "apply": "1", "note": "answered at random"})
    a.refresh_from_db()
    assert a.status == S.REJECTED and a.review_note == "answered at random"
    client.post(reverse("admin:auth_user_changelist"), {"action": "block", "_selected_action": [a.worker_id]})
    bonus = Bonus.objects.create(project=project, worker=a.worker, amount=Decimal("1"), reason="x")
    client.post(reverse("admin:recruiting_bonus_changelist"), {"action": "mark_paid", "_selected_action": [bonus.pk]})
    assert actions() == ["settings", "reject", "block", "bonus:paid"]


def test_exports_are_recorded_and_the_log_downloads_as_csv(client):
    boss = UserFactory(role="admin")
    client.force_login(boss)
    project, other = ProjectFactory(), ProjectFactory()
    submitted(project)
    b"".join(client.get(reverse("export", args=[project.slug, "csv"])).streaming_content)
    b"".join(client.get(reverse("export-bonuses", args=[project.slug])).streaming_content)
    bonus_grant(project=other, worker=UserFactory(username="@SUM(1+1)"), amount="1", reason="r", actor=boss)
    response = client.get(reverse("audit-csv", args=[project.slug]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert response["Content-Type"].startswith("text/csv")
    # The download of the log is itself recorded, first: newest first.
    assert [(r["action"], r["target"], r["actor"]) for r in rows] == [
        ("export", "audit.csv", boss.username), ("export", "bonuses.csv", boss.username),
        ("export", "annotations.csv", boss.username)]
    # Only the superuser gets the whole site's log; its cells are safe for spreadsheets.
    assert client.get(reverse("audit-csv-site")).status_code == 403
    client.force_login(UserFactory(role="admin", is_superuser=True))
    body = b"".join(client.get(reverse("audit-csv-site")).streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert {r["project"] for r in rows} == {project.slug, other.slug, ""}  # "": the site-wide download
    target = next(r["target"] for r in rows if r["project"] == other.slug)
    assert target == "worker @SUM(1+1)"  # starts with "worker": nothing a spreadsheet would run


def test_an_annotator_gets_no_log(client):
    project = ProjectFactory()
    client.force_login(UserFactory())
    assert client.get(reverse("audit-csv", args=[project.slug])).status_code == 403
    assert client.get(reverse("audit-csv-site")).status_code == 403


def test_the_admin_shows_the_log_read_only(client):
    boss = UserFactory(role="admin", is_superuser=True)
    client.force_login(boss)
    worker_block(worker=UserFactory(username="blockme"), actor=boss)
    listing = client.get(reverse("admin:annotation_auditentry_changelist") + "?q=blockme")
    assert listing.status_code == 200 and b"worker blockme" in listing.content
    assert reverse("audit-csv-site").encode() in listing.content
    entry = AuditEntry.objects.get()
    assert client.get(reverse("admin:annotation_auditentry_add")).status_code == 403
    assert client.post(reverse("admin:annotation_auditentry_delete", args=[entry.pk]), {"post": "yes"}).status_code == 403
    assert AuditEntry.objects.filter(pk=entry.pk).exists()
