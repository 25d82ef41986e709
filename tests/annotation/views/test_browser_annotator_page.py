"""The annotation page in Chromium: a second tab with another answer, going back after
submitting, the lease's countdown, and the project's add form fetching a type's options.
Screenshots go to SHOTS_DIR (default /tmp/shots-page)."""

import os
import re
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from annotation.models import Annotation, Assignment, Project
from annotation.task_types import task_types
from tests.annotation.views.test_browser import label_of_key
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(os.environ.get("SHOTS_DIR", "/tmp/shots-page"))
SIZE = {"width": 1280, "height": 800}
FIRST = "A1 gives a concrete example while A2 stays vague."
SECOND = "A2 explains the cost argument with real numbers."


def logged_in(browser, live_server, username, **user):
    UserFactory(username=username, **user)
    context = browser.new_context(viewport=SIZE)
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill("pw-for-tests")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/(projects|admin)/.*"))
    return context, page


def answer(page, key, reason):
    page.keyboard.press("s")
    page.keyboard.press(key)
    page.keyboard.type(reason)
    page.keyboard.press("Control+Enter")


def test_a_second_tab_with_another_answer_offers_to_change_the_saved_one(live_server, browser):
    project = ProjectFactory(name="Two tabs", redundancy=1)
    ItemFactory.create_batch(3, project=project)
    context, one = logged_in(browser, live_server, "two-tabs")
    url = f"{live_server.url}/projects/{project.slug}/annotate/"
    one.goto(url)
    two = context.new_page()
    two.goto(url)
    assert one.locator("#task-form").get_attribute("data-assignment") == two.locator("#task-form").get_attribute("data-assignment")

    answer(one, "1", FIRST)
    expect(one.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    answer(two, "2", SECOND)
    notice = two.get_by_test_id("notice")
    expect(notice).to_contain_text("not saved")
    expect(two.get_by_test_id("editing")).to_be_visible()
    # The answer just sent is on screen, ready to replace the saved one.
    expect(two.locator("textarea")).to_have_value(SECOND)
    stored = Annotation.objects.get()
    # Keys 1 and 2: the left and right argument as drawn for this assignment.
    assert stored.answer["label"] == label_of_key(stored.assignment, "1") and stored.reason == FIRST
    # Playwright hides the caret with an injected style, which the Content-Security-Policy blocks.
    two.screenshot(path=str(SHOTS / "second-tab.png"), caret="initial")
    two.get_by_test_id("submit").click()
    expect(two.get_by_role("status").filter(has_text="Your answer was changed.")).to_be_visible()
    stored.refresh_from_db()
    assert stored.answer["label"] == label_of_key(stored.assignment, "2") and stored.reason == SECOND and stored.version == 2
    context.close()


def test_going_back_after_submitting_shows_the_current_item_not_the_answered_one(live_server, browser):
    project = ProjectFactory(name="Back button", redundancy=1)
    ItemFactory.create_batch(3, project=project)
    context, page = logged_in(browser, live_server, "back-button")
    response = page.goto(f"{live_server.url}/projects/{project.slug}/annotate/")
    assert "no-store" in response.headers["cache-control"]
    first = page.locator("#task-form").get_attribute("data-assignment")
    answer(page, "1", FIRST)
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    second = page.locator("#task-form").get_attribute("data-assignment")
    assert second != first
    page.get_by_role("link", name="Projects").first.click()
    page.wait_for_url(f"{live_server.url}/projects/")
    page.go_back()
    expect(page.locator("#task-form")).to_have_attribute("data-assignment", second)
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    context.close()


def test_the_lease_counts_down_and_says_when_it_ran_out(live_server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    project = ProjectFactory(name="Uniforms: which argument convinces more?", redundancy=1, lease_minutes=30)
    ItemFactory.create_batch(3, project=project)
    context, page = logged_in(browser, live_server, "lease-clock")
    page.goto(f"{live_server.url}/projects/{project.slug}/annotate/")
    clock = page.locator("[data-testid=lease] time")
    expect(clock).to_have_text(re.compile(r"^(29:5\d|30:00)$"))
    expect(page.get_by_test_id("position")).to_have_text("Item 1 of 3 open to you")
    page.screenshot(path=str(SHOTS / "annotator-page.png"), caret="initial")

    # Two seconds left, as the server will count them on the next load.
    now = timezone.now()
    ends = now + timedelta(seconds=2)
    Assignment.objects.filter(status=Assignment.Status.ASSIGNED).update(
        assigned_at=now - timedelta(minutes=29), expires_at=ends)
    page.reload()
    over = page.get_by_text("Your time for this item has run out.")
    expect(over).to_be_visible(timeout=6_000)
    expect(clock).to_have_text("0:00")
    page.screenshot(path=str(SHOTS / "lease-over.png"), caret="initial")
    # The page counts whole seconds down from the server's figure rounded down, so it may say so
    # up to a second early: the answer goes once the lease really ended.
    time.sleep(max((ends - timezone.now()).total_seconds(), 0))
    answer(page, "3", FIRST)
    expect(page.get_by_test_id("notice")).to_contain_text("had run out, but nobody else had taken its place")
    assert Annotation.objects.count() == 1
    context.close()


def test_the_add_form_fetches_the_chosen_types_options(live_server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    task = next(t for t in task_types() if t.options_form is not None)
    context, page = logged_in(browser, live_server, "admin-add", role="admin", is_superuser=True)
    page.goto(f"{live_server.url}/admin/annotation/project/add/")
    options = page.locator("fieldset.task-options")
    expect(options).to_contain_text("Choose a task type")
    page.locator("#id_name").fill("A new study")
    page.locator("#id_task_type").select_option(task.slug)
    first = next(iter(task.option_defaults()))
    expect(options.locator(f'[name="option_{first}"]')).to_be_visible()
    # What was typed is still there: only the options' fieldset was replaced.
    expect(page.locator("#id_name")).to_have_value("A new study")
    page.screenshot(path=str(SHOTS / "admin-add-form.png"), full_page=False, caret="initial")
    options.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "admin-add-form-options.png"), caret="initial")
    page.locator("input[name=_save]").click()
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    assert Project.objects.get(name="A new study").options == task.option_defaults()
    context.close()
