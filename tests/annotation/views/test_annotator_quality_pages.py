"""The annotator's pages and the API in quality control: the qualification's note, feedback
after a training item and a gold question, and the pages of a worker who gets no items."""

from urllib.parse import urlencode

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import ItemKind, Purpose, Standing, WorkerProfile
from quality.models import QualityRule, WorkerStanding
from quality.services import check_serving as serving
from quality.services.standing import standing_set
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
RIGHT, WRONG = "a1", "a2"


@pytest.fixture
def qualifying():
    project = ProjectFactory()
    quality_policy(project, qualification_items=2, qualification_attempts=2, qualification_pass=1.0,
                   training_feedback="after_each")
    for n in range(4):
        check_item(project, kind=ItemKind.TRAINING, answer={"label": RIGHT}, explanation=f"Training reason {n}.")
    ItemFactory(project=project)
    return project


@pytest.fixture
def annotator(client):
    user = UserFactory()
    client.force_login(user)
    return user


def annotate(client, project):
    return client.get(reverse("annotate", args=[project.slug]))


def submit(client, project, assignment, label, **extra):
    return client.post(reverse("submit", args=[project.slug, assignment.pk]), answer(label=label), **extra)


def why(assignment):
    return assignment.item.gold_answer.explanation


def test_the_qualification_shows_feedback_with_the_item_it_is_about_on_both_paths(client, annotator, qualifying):
    page = annotate(client, qualifying)
    body = page.content.decode()
    assert "Qualification: item 1 of 2." in body and 'data-testid="feedback"' not in body
    assert "you see the expected answer after each" in body
    first = page.context["assignment"]
    # htmx: the item just answered, shown as answered (no form to send again), its feedback
    # below it and Continue after that; the next item is not handed out yet.
    response = submit(client, qualifying, first, WRONG, **HTMX)
    swapped = response.content.decode()
    assert swapped.lstrip().startswith('<div id="task-area"') and response.context["assignment"].pk == first.pk
    assert "Not quite." in swapped and why(first) in swapped and 'data-testid="feedback-expected"' in swapped
    assert 'id="task-form"' not in swapped and "Qualification: item 2 of 2." not in swapped
    assert (swapped.index('data-testid="answered-item"') < swapped.index('data-testid="feedback"')
            < swapped.index('data-testid="continue"'))
    assert qualifying.assignments.filter(worker=annotator).count() == 1
    # Continue: the next item, the feedback gone.
    following = annotate(client, qualifying)
    assert "Qualification: item 2 of 2." in following.content.decode()
    assert 'data-testid="feedback"' not in following.content.decode()
    second = following.context["assignment"]
    assert second.pk != first.pk
    # Reloaded: the feedback waits in the session for the next page, shown once with its item.
    redirected = submit(client, qualifying, second, RIGHT)
    assert redirected.status_code == 302
    shown = client.get(redirected.url)
    assert shown.context["assignment"].pk == second.pk
    assert "Right." in shown.content.decode() and why(second) in shown.content.decode()
    failed = annotate(client, qualifying).content.decode()
    assert "You did not pass the qualification this time" in failed and "1 attempt left" in failed
    assert 'data-testid="try-again"' in failed and "You answered 1 of 2 right; 100% were needed." in failed
    assert "Right." not in annotate(client, qualifying).content.decode()


def test_try_again_opens_another_round_and_none_left_screens_out_with_the_marketplace_code(client, qualifying):
    quality_policy(qualifying, screened_out_code="SCREEN-1", screened_out_url="https://app.prolific.com/screened")
    qualifying.external_entry, qualifying.panel = True, "prolific"
    qualifying.save()
    client.get(reverse("start", args=[qualifying.slug]) + "?" + urlencode({"PROLIFIC_PID": "p9"}))
    client.post(reverse("welcome", args=[qualifying.slug]), {"accept": "yes"})
    for _ in range(2):  # two attempts, both failed
        for _ in range(2):
            submit(client, qualifying, annotate(client, qualifying).context["assignment"], WRONG)
            assert 'data-testid="continue"' in annotate(client, qualifying).content.decode()  # the feedback
        retry = client.post(reverse("qualification-retry", args=[qualifying.slug]))
        assert retry.status_code == 302
    page = annotate(client, qualifying).content.decode()
    assert "You did not qualify for this project" in page
    assert 'data-testid="screened-out-code">SCREEN-1<' in page
    assert 'href="https://app.prolific.com/screened"' in page and 'data-testid="try-again"' not in page


def test_a_worker_blocked_in_the_project_sees_a_clear_page_and_the_project_list_says_so(client, annotator):
    project = ProjectFactory(name="Blocked here")
    ItemFactory(project=project)
    annotate(client, project)
    standing_set(project=project, worker=annotator, state=Standing.BLOCKED, reason="test")
    page = annotate(client, project).content.decode()
    assert "You can no longer take items in this project" in page and 'id="task-form"' not in page
    assert "Blocked: you can no longer take items in this project." in client.get(reverse("projects")).content.decode()
    WorkerProfile.objects.filter(user=annotator).update(blocked=True)
    assert "Your account is blocked" in annotate(client, project).content.decode()


def test_the_project_list_says_qualifying_before_the_first_item(client, annotator, qualifying):
    assert "Qualification first" in client.get(reverse("projects")).content.decode()


def test_gold_feedback_shows_only_when_the_project_gives_it(client, annotator, monkeypatch):
    monkeypatch.setattr(serving, "draw", lambda: 0.0)
    project = ProjectFactory()
    quality_policy(project, gold_rate=0.5)
    for _ in range(2):
        check_item(project, answer={"label": RIGHT}, explanation="A1 cites a study.")
    ItemFactory(project=project)
    a = annotate(client, project).context["assignment"]
    silent = submit(client, project, a, WRONG, **HTMX).content.decode()
    assert 'data-testid="feedback"' not in silent and "Saved." in silent
    quality_policy(project, gold_feedback=True)
    b = annotate(client, project).context["assignment"]
    shown = submit(client, project, b, WRONG, **HTMX).content.decode()
    assert "check question with a known answer" in shown and "A1 cites a study." in shown
    assert 'data-testid="feedback-expected">' in shown


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_the_api_marks_training_gives_feedback_and_retries(qualifying):
    worker = UserFactory()
    c = api(worker)
    nxt = c.post(reverse("api-next", args=[qualifying.slug])).json()
    assert nxt["training"] == {"kind": "qualification", "round": 1, "item": 1, "of": 2, "note": ""}
    sent = c.post(reverse("api-submit", args=[nxt["assignment"]["id"]]), answer(label=WRONG), format="json").json()
    assert sent["feedback"]["right"] is False and sent["feedback"]["expected"] == {"label": RIGHT}
    served = qualifying.assignments.get(pk=nxt["assignment"]["id"])
    assert sent["feedback"]["why"] == why(served) and sent["feedback"]["expected_text"]
    nxt = c.post(reverse("api-next", args=[qualifying.slug])).json()
    c.post(reverse("api-submit", args=[nxt["assignment"]["id"]]), answer(label=WRONG), format="json")
    failed = c.post(reverse("api-next", args=[qualifying.slug])).json()
    assert failed["reason"] == "qualification_failed" and failed["attempts_left"] == 1
    assert failed["last_round"] == {"right": 0, "answered": 2, "pass_mark": 1.0}
    assert c.post(reverse("api-qualification-retry", args=[qualifying.slug])).status_code == 201
    again = c.post(reverse("api-qualification-retry", args=[qualifying.slug]))
    assert again.status_code == 409 and "already open" in again.json()["detail"]
    # Another project's retry is a 404 to someone who may not see it.
    hidden = ProjectFactory(open_to_all=False)
    assert c.post(reverse("api-qualification-retry", args=[hidden.slug])).status_code == 404


def test_the_api_says_blocked_by_a_rule_and_never_marks_a_gold_question(monkeypatch):
    monkeypatch.setattr(serving, "draw", lambda: 0.0)
    project = ProjectFactory()
    quality_policy(project, gold_rate=0.5)
    # A bar of perfect accuracy: its test decides on the first wrong gold answer (after min_answers).
    QualityRule.objects.create(project=project, kind=QualityRule.Kind.GOLD_ACCURACY, action=QualityRule.Action.BLOCK,
                               threshold=1.0, min_answers=2)
    for _ in range(3):
        check_item(project, answer={"label": RIGHT})
    ItemFactory(project=project)
    worker = UserFactory()
    c = api(worker)
    for _ in range(2):
        nxt = c.post(reverse("api-next", args=[project.slug])).json()
        assert set(nxt) == {"assignment", "resumed", "variant", "options"}
        sent = c.post(reverse("api-submit", args=[nxt["assignment"]["id"]]), answer(label=WRONG), format="json")
        assert "feedback" not in sent.json()
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.BLOCKED
    assert c.post(reverse("api-next", args=[project.slug])).json() == {"assignment": None, "reason": "blocked"}
    assert project.assignments.filter(worker=worker, purpose=Purpose.GOLD).count() == 2
