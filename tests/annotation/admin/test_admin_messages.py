"""What the admin's actions say: counts in the right number, and why part of a selection was
left as it was. The project form shows the task-type options once."""

import html
import json
import re

import pytest
from django.urls import reverse

from annotation.models import Assignment
from annotation.services import annotation_submit, assignment_next
from task_types.pairwise.tests.factories import answer
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Assignment.Status


def run_action(client, model: str, action: str, pks, **fields) -> list[tuple[str, str]]:
    """The messages the list page shows after the action (which consumes them). Approving and
    rejecting ask why first: the note and "apply" are sent with them."""
    if model == "annotation_assignment" and action in ("approve", "reject"):
        fields = {"apply": "1", "note": f"{action} in the test", **fields}
    response = client.post(reverse(f"admin:{model}_changelist"),
                           {"action": action, "_selected_action": [str(pk) for pk in pks], **fields}, follow=True)
    assert response.redirect_chain and response.status_code == 200
    return [(m.level_tag, m.message) for m in response.context["messages"]]


def submitted(project):
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    return a


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(role="admin", is_superuser=True))
    return client


def test_rejecting_an_open_assignment_says_why_nothing_was_rejected(admin_client):
    open_one = AssignmentFactory()
    said = run_action(admin_client, "annotation_assignment", "reject", [open_one.pk])
    assert said == [("warning", "No assignment was rejected. 1 assignment is still open: "
                                "only submitted assignments can be rejected.")]
    assert Assignment.objects.get(pk=open_one.pk).status == Status.ASSIGNED


def test_review_messages_count_in_the_right_number(admin_client):
    project = ProjectFactory(redundancy=5)
    ItemFactory.create_batch(3, project=project)
    one = submitted(project)
    assert run_action(admin_client, "annotation_assignment", "reject", [one.pk]) == [
        ("success", "Rejected 1 assignment.")]
    two, three = submitted(project), submitted(project)
    expired = AssignmentFactory(item=two.item, status=Status.EXPIRED)
    returned = AssignmentFactory(item=two.item, status=Status.RETURNED)
    said = run_action(admin_client, "annotation_assignment", "approve", [two.pk, three.pk, expired.pk, returned.pk])
    assert said == [("info", "Approved 2 assignments. 1 assignment expired unanswered, 1 assignment was skipped "
                             "or given back: only submitted assignments can be approved.")]
    assert run_action(admin_client, "annotation_assignment", "approve", [two.pk, three.pk]) == [
        ("success", "No assignment was approved. 2 were already approved.")]


def test_approving_rejected_work_whose_slot_was_taken_says_so(admin_client):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    first = submitted(project)
    run_action(admin_client, "annotation_assignment", "reject", [first.pk])
    submitted(project)  # the freed slot is taken again
    assert run_action(admin_client, "annotation_assignment", "approve", [first.pk]) == [
        ("warning", "No assignment was approved. 1 could not be approved: its item's slots were filled again "
                    "after the rejection.")]


def test_blocking_counts_workers_in_the_right_number(admin_client):
    one, two, three = UserFactory(), UserFactory(), UserFactory()
    assert run_action(admin_client, "auth_user", "block", [one.pk]) == [("success", "Blocked 1 worker.")]
    assert run_action(admin_client, "auth_user", "unblock", [two.pk, three.pk]) == [("success", "Unblocked 2 workers.")]


def test_the_project_form_shows_the_task_options_once_and_keeps_other_records(admin_client):
    project = ProjectFactory(task_type="comprehension", options={"mode": "listening", "require_end": True,
                                                                  "generated": {"by": "import", "n": 4}})
    url = reverse("admin:annotation_project_change", args=[project.pk])
    page = admin_client.get(url).content.decode()
    # The typed section holds the options; the raw record is not a second copy of them.
    assert 'name="option_mode"' in page and not re.search(r"field-options[\s\"]", page)
    shown = html.unescape(re.search(r"field-other_options.*?<div class=\"readonly\">(.*?)</div>", page, re.S).group(1))
    assert json.loads(shown) == {"generated": {"by": "import", "n": 4}}
    form = admin_client.get(url).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and not isinstance(value, bool)}
    data.update({"name": project.name, "slug": project.slug, "task_type": "comprehension", "redundancy": 3,
                 "lease_minutes": 30, "state": "active", "assignment_order": "sequential",
                 "panel": "prolific", "worker_param": "worker_id", "custom_source": "link", "option_mode": "reading", "option_require_end": "on",
                 "option_transcript": "manual", "option_max_plays": "0", "options_of": "comprehension"})
    data = {k: v for k, v in data.items() if not isinstance(v, (list, dict)) and k != "members"}
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    project.refresh_from_db()
    assert project.options["mode"] == "reading" and project.options["generated"] == {"by": "import", "n": 4}


def test_a_project_without_other_records_shows_no_raw_options(admin_client):
    project = ProjectFactory(task_type="comprehension", options={"mode": "listening"})
    page = admin_client.get(reverse("admin:annotation_project_change", args=[project.pk])).content.decode()
    assert "Other option records" not in page and 'name="option_mode"' in page
    assert not re.search(r"field-options[\s\"]", page)


def test_approving_and_rejecting_in_the_admin_ask_why_and_keep_it(admin_client):
    from annotation.models import Assignment, AuditEntry

    project = ProjectFactory(redundancy=2)
    ItemFactory(project=project)
    one = submitted(project)
    url = reverse("admin:annotation_assignment_changelist")
    asked = admin_client.post(url, {"action": "reject", "_selected_action": [str(one.pk)]})
    assert asked.status_code == 200 and "Say why you reject" in asked.content.decode()
    assert Assignment.objects.get(pk=one.pk).status == Assignment.Status.SUBMITTED  # nothing yet
    empty = admin_client.post(url, {"action": "reject", "_selected_action": [str(one.pk)], "apply": "1", "note": ""})
    assert empty.status_code == 200 and "This field is required" in empty.content.decode()
    run_action(admin_client, "annotation_assignment", "reject", [one.pk], note="Reason copied from another worker")
    done = Assignment.objects.get(pk=one.pk)
    assert (done.status, done.review_note) == (Assignment.Status.REJECTED, "Reason copied from another worker")
    entry = AuditEntry.objects.get(action="reject")
    assert entry.details["note"] == "Reason copied from another worker" and entry.actor.is_superuser
