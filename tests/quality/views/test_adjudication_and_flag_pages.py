"""The staff pages of adjudication and flagged items, and the worker's "Report a problem" form:
permissions, answers without worker names, decisions, withdraw and dismiss, and another
project's or worker's ids answered with 404."""

import pytest
from django.urls import reverse

from annotation.models import Assignment, AuditEntry, Item, ItemKind
from annotation.services import assignment_next
from annotation.task_types import get_task_type, task_types
from quality.models import Adjudication, ItemFlag
from quality.services.flags import item_flag
from tests.annotation.quality_helpers import REASON, gold_item, split_item
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
S = Assignment.Status


@pytest.fixture
def admin(client):
    user = UserFactory(role="admin", username="the-admin")
    client.force_login(user)
    return user


def test_the_queue_lists_contested_items_with_why_and_filters_by_reason(client, admin):
    project = ProjectFactory()
    split = split_item(project)
    disputed = gold_item(project, right=0, wrong=3)
    body = client.get(reverse("adjudication", args=[project.slug])).content.decode()
    assert split.external_id in body and disputed.external_id in body
    assert 'data-reason="split"' in body and 'data-reason="gold_disagreement"' in body
    assert reverse("adjudication-item", args=[project.slug, split.pk]) in body
    only_gold = client.get(reverse("adjudication", args=[project.slug]), {"reason": "gold_disagreement"})
    assert [r.item_id for r in only_gold.context["queue"].rows] == [disputed.pk]
    # Bad figures in the query fall back to the defaults.
    assert client.get(reverse("adjudication", args=[project.slug]), {"split": "x", "posterior": "7"}).status_code == 200


def test_the_item_page_shows_answers_without_worker_names_and_saves_a_decision(client, admin):
    project = ProjectFactory()
    item = split_item(project, ("a1", "a2", "equal"))
    names = list(Assignment.objects.filter(item=item).values_list("worker__username", flat=True))
    url = reverse("adjudication-item", args=[project.slug, item.pk])
    response = client.get(url)
    body = response.content.decode()
    assert response.status_code == 200
    assert not any(name in body for name in names)
    assert [a.number for a in response.context["answers"]] == [1, 2, 3]
    assert REASON in body.replace("&#x27;", "'")
    assert item.payload["arg1"]["text"] in body  # the item as its task type renders it
    assert 'name="label"' in body and 'name="why"' in body
    refused = client.post(url, {"label": "a2", "why": ""})
    assert refused.status_code == 400 and "why" in refused.context["errors"]
    assert not Adjudication.objects.exists()
    saved = client.post(url, {"label": "a2", "why": "A2 gives evidence."})
    assert saved.status_code == 302 and saved.url == reverse("adjudication", args=[project.slug])
    decision = Adjudication.objects.get(item=item)
    assert (decision.answer, decision.why, decision.decided_by, decision.contested) == (
        {"label": "a2"}, "A2 gives evidence.", admin, ["split"])
    listed = client.get(reverse("adjudication", args=[project.slug]))
    assert [r.item_id for r in listed.context["done_rows"]] == [item.pk] and not listed.context["queue"].rows


def test_a_gold_questions_page_offers_to_correct_its_gold_answer(client, admin):
    project = ProjectFactory()
    item = gold_item(project, right=0, wrong=3)
    body = client.get(reverse("adjudication-item", args=[project.slug, item.pk])).content.decode()
    assert 'name="make_gold"' in body and "wrong" in body
    client.post(reverse("adjudication-item", args=[project.slug, item.pk]),
                {"label": "a2", "why": "The gold answer was wrong.", "make_gold": "on"})
    assert item.gold_answer.answer == {"label": "a2"}


def test_researchers_see_the_pages_but_may_not_decide_or_resolve(client):
    project = ProjectFactory()
    item = split_item(project)
    client.force_login(UserFactory(role="researcher"))
    assert client.get(reverse("adjudication", args=[project.slug])).status_code == 200
    page = client.get(reverse("adjudication-item", args=[project.slug, item.pk]))
    assert page.status_code == 200 and 'name="why"' not in page.content.decode()
    assert client.post(reverse("adjudication-item", args=[project.slug, item.pk]),
                       {"label": "a1", "why": "x"}).status_code == 403
    assert client.get(reverse("flags", args=[project.slug])).status_code == 200
    assert client.post(reverse("flag-withdraw", args=[project.slug, item.pk])).status_code == 403
    assert not Adjudication.objects.exists() and Item.objects.get(pk=item.pk).kind == ItemKind.REAL


@pytest.mark.parametrize("name", ["adjudication", "flags"])
def test_annotators_get_no_access(client, name):
    project = ProjectFactory()
    client.force_login(UserFactory())
    assert client.get(reverse(name, args=[project.slug])).status_code == 403


def test_another_projects_item_is_404_and_changes_nothing(client, admin):
    project, other = ProjectFactory(), ProjectFactory()
    item = split_item(other)
    assert client.get(reverse("adjudication-item", args=[project.slug, item.pk])).status_code == 404
    assert client.post(reverse("adjudication-item", args=[project.slug, item.pk]),
                       {"label": "a1", "why": "x"}).status_code == 404
    assert client.post(reverse("flag-withdraw", args=[project.slug, item.pk])).status_code == 404
    assert not Adjudication.objects.exists() and Item.objects.get(pk=item.pk).kind == ItemKind.REAL


def flagged(project, problem="text", reason="The text stops mid-sentence."):
    a = AssignmentFactory(item=ItemFactory(project=project))
    return item_flag(assignment=a, worker=a.worker, problem=problem, reason=reason)


def test_flags_page_withdraw_and_dismiss(client, admin):
    project = ProjectFactory(redundancy=2)
    first = flagged(project)
    second = flagged(project, problem="media", reason="No sound at all.")
    held = AssignmentFactory(item=first.item)
    assert Item.objects.get(pk=first.item_id).n_active == 1
    body = client.get(reverse("flags", args=[project.slug])).content.decode()
    assert "The text stops mid-sentence." in body and "No sound at all." in body and "The audio does not play" in body
    overview = client.get(reverse("overview", args=[project.slug])).content.decode()
    assert 'data-testid="open-flags"' in overview and reverse("flags", args=[project.slug]) in overview
    assert reverse("adjudication", args=[project.slug]) in overview
    # The first post asks, saying what the withdrawal does; nothing changes until it is confirmed.
    asked = client.post(reverse("flag-withdraw", args=[project.slug, first.item_id]), {"note": "cut off"})
    effects = asked.content.decode()
    assert asked.status_code == 200 and 'data-testid="withdraw-confirm"' in effects
    assert "1 open assignment goes back" in effects and "1 open report is resolved" in effects
    assert Item.objects.get(pk=first.item_id).kind == ItemKind.REAL and not AuditEntry.objects.exists()
    client.post(reverse("flag-withdraw", args=[project.slug, first.item_id]), {"confirm": "yes", "note": "cut off"})
    held.refresh_from_db()
    assert Item.objects.get(pk=first.item_id).kind == ItemKind.WITHDRAWN and held.status == S.RETURNED
    assert Item.objects.get(pk=first.item_id).n_active == 0
    client.post(reverse("flag-dismiss", args=[project.slug, second.item_id]))
    assert ItemFlag.objects.get(pk=second.pk).resolution == "dismissed"
    assert set(AuditEntry.objects.values_list("action", flat=True)) == {"item_withdraw", "flags_dismiss"}
    assert 'data-testid="open-flags"' not in client.get(reverse("overview", args=[project.slug])).content.decode()


def test_a_worker_reports_an_item_and_gets_the_next(client):
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(2, project=project)
    worker = UserFactory()
    client.force_login(worker)
    page = client.get(reverse("annotate", args=[project.slug]))
    first = page.context["assignment"]
    body = page.content.decode()
    assert 'data-testid="flag-panel"' in body and reverse("flag", args=[project.slug, first.pk]) in body
    response = client.post(reverse("flag", args=[project.slug, first.pk]),
                           {"problem": "options", "reason": "Both arguments are the same text."}, **HTMX)
    assert response.status_code == 200 and "Thank you for the report" in response.content.decode()
    assert response.context["assignment"].pk != first.pk
    first.refresh_from_db()
    assert first.status == S.RETURNED
    flag = ItemFlag.objects.get()
    assert (flag.assignment_id, flag.problem) == (first.pk, "options")
    # Sent again (a second click): nothing new, and the worker keeps the next item.
    again = client.post(reverse("flag", args=[project.slug, first.pk]), {"problem": "options", "reason": "again"})
    assert again.status_code == 302 and ItemFlag.objects.count() == 1


def test_a_report_without_a_reason_keeps_the_item(client):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    client.force_login(UserFactory())
    first = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    response = client.post(reverse("flag", args=[project.slug, first.pk]), {"problem": "text", "reason": " "}, **HTMX)
    assert "not sent" in response.content.decode() and response.context["assignment"].pk == first.pk
    assert not ItemFlag.objects.exists()


def test_another_workers_or_projects_assignment_is_404(client):
    project, other = ProjectFactory(), ProjectFactory()
    ItemFactory(project=project)
    owner = UserFactory()
    a = assignment_next(project=project, worker=owner).assignment
    client.force_login(UserFactory())
    data = {"problem": "text", "reason": "garbled"}
    assert client.post(reverse("flag", args=[project.slug, a.pk]), data).status_code == 404
    client.force_login(owner)
    assert client.post(reverse("flag", args=[other.slug, a.pk]), data).status_code == 404
    a.refresh_from_db()
    assert a.status == S.ASSIGNED and not ItemFlag.objects.exists()


@pytest.mark.parametrize("slug", [t.slug for t in task_types()])
def test_every_task_types_item_is_shown_and_decided_through_its_gold_fields(client, admin, slug):
    task = get_task_type(slug)
    project = ProjectFactory(task_type=slug, options=task.clean_options(task.example().options))
    item = ItemFactory(project=project)
    url = reverse("adjudication-item", args=[project.slug, item.pk])
    page = client.get(url)
    assert page.status_code == 200
    fields = page.context["fields"]
    assert [f.name for f in fields] == list(task.gold_fields) and all(f.choices for f in fields)
    form = {f.name: f.choices[0][0] for f in fields}
    assert client.post(url, {**form, "why": "decided in a test"}).status_code == 302
    decided = Adjudication.objects.get(item=item).answer
    assert decided == task.clean_gold({f.name: ([v] if f.kind == "choices" else v) for f, v in
                                       zip(fields, form.values(), strict=True)}, payload=item.payload).answer


def test_a_withdrawal_is_undone_from_the_flags_page(client, admin):
    project = ProjectFactory(redundancy=2)
    flag = flagged(project)
    client.post(reverse("flag-withdraw", args=[project.slug, flag.item_id]), {"confirm": "yes"})
    body = client.get(reverse("flags", args=[project.slug])).content.decode()
    assert 'data-testid="withdraw-undo"' in body
    client.post(reverse("flag-withdraw-undo", args=[project.slug, flag.item_id]))
    assert Item.objects.get(pk=flag.item_id).kind == ItemKind.REAL
    assert ItemFlag.objects.get(pk=flag.pk).resolved_at is None
    assert list(AuditEntry.objects.order_by("pk").values_list("action", flat=True)) == [
        "item_withdraw", "item_withdraw_undo"]
    # Nothing left to undo: said, and nothing changes.
    again = client.post(reverse("flag-withdraw-undo", args=[project.slug, flag.item_id]), follow=True)
    assert "is not withdrawn" in again.content.decode() and AuditEntry.objects.count() == 2
