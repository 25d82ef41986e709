"""The annotator's and the staff's pages in Chromium at the sizes people use: the first pairwise
item fits a 1366×900 screen down to Submit, an unsent answer survives a reload, a listening item
whose speech cannot be heard again after a reload leaves only Skip, and staff pages at phone
width never scroll sideways."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from analysis.services import analysis_run_create
from annotation.models import Annotation, MediaUse
from task_types.comprehension.tests.test_browser_listening import listening_project
from task_types.pairwise.tests.factories import pair_payload
from tests.annotation.views.test_browser import REASONS, open_page
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
LAPTOP = {"width": 1366, "height": 900}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LONG = " ".join(["Uniforms take away a way for pupils to show who they are, and that matters at that age."] * 12)


def test_the_first_pairwise_item_fits_a_laptop_screen_with_long_arguments(live_server, browser):
    project = ProjectFactory(redundancy=1)
    payload = pair_payload(0)
    payload["arg1"]["text"] = payload["arg2"]["text"] = LONG
    ItemFactory(project=project, payload=payload)
    page = open_page(browser, live_server, project)
    page.set_viewport_size(LAPTOP)
    submit = page.get_by_test_id("submit")
    box = submit.bounding_box()
    assert box["y"] + box["height"] <= LAPTOP["height"], box
    expect(page.get_by_role("radio", name="Opposite")).to_be_in_viewport()
    # The long arguments scroll inside their columns instead of pushing the form down.
    for argument in page.locator(".argument").all():
        assert argument.evaluate("e => e.scrollHeight > e.clientHeight")
    page.close()


def test_an_unsent_answer_survives_a_reload_and_stays_with_its_assignment(live_server, browser):
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(2, project=project)
    page = open_page(browser, live_server, project)
    form = page.locator("#task-form")
    first = form.get_attribute("data-assignment")
    page.get_by_role("radio", name="Equally convincing").check()
    page.locator("textarea[name=reason]").fill("Half a reason, typed")
    page.get_by_role("radio", name="Opposite").check()
    page.reload()
    expect(page.get_by_test_id("draft-restored")).to_be_visible()
    expect(form).to_have_attribute("data-assignment", first)
    expect(page.locator("input[name=label][value=equal]")).to_be_checked()
    expect(page.locator("input[name=standpoint][value=opposite]")).to_be_checked()
    expect(page.locator("textarea[name=reason]")).to_have_value("Half a reason, typed")
    expect(page.locator(".counter")).to_contain_text("20 /")
    # Sent: the draft is gone, and the next assignment starts empty, also after a reload.
    page.locator("textarea[name=reason]").fill(REASONS[2])
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    assert Annotation.objects.get().answer == {"label": "equal", "standpoint": "opposite"}
    assert page.evaluate(f"localStorage.getItem('draft:{first}')") is None
    page.reload()
    expect(form).not_to_have_attribute("data-assignment", first)
    expect(page.get_by_test_id("draft-restored")).to_have_count(0)
    assert page.locator("#task-form input[name=label]:checked").count() == 0
    assert page.locator("textarea[name=reason]").input_value() == ""
    # Logging out takes every draft kept in this browser with the session.
    page.get_by_role("radio", name="Equally convincing").check()
    page.locator("textarea[name=reason]").fill("Left behind on a shared machine")
    page.wait_for_function("() => Object.keys(localStorage).some((k) => k.startsWith('draft:'))")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/")
    assert page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('draft:'))") == []
    assert page.errors == []
    page.close()


def test_a_listening_item_started_before_a_reload_leaves_only_skip(live_server, browser, media_root):
    project = listening_project()
    page = open_page(browser, live_server, project, username="reloader")
    page.get_by_test_id("play").click()
    deadline = time.monotonic() + 10
    while not MediaUse.objects.filter(plays__gte=1).exists():
        assert time.monotonic() < deadline, "the start of playback never reached the server"
        time.sleep(0.1)
    # Reloaded mid-speech, with what this tab kept of the playback gone.
    page.evaluate("sessionStorage.clear()")
    page.reload()
    notice = page.get_by_test_id("player-unanswerable")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Skip this item")
    expect(page.get_by_test_id("submit")).to_be_disabled()
    for box in page.locator("input[name=titles]").all():
        expect(box).to_be_disabled()
    page.keyboard.press("1")
    page.keyboard.press("Control+Enter")
    expect(page.locator("input[name=titles]").first).not_to_be_checked()
    expect(page.get_by_test_id("skip")).to_be_enabled()
    page.get_by_test_id("skip").click()
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    assert not Annotation.objects.exists()
    page.close()


def test_staff_pages_at_phone_width_do_not_scroll_sideways(live_server, browser, annotated_project):
    annotated_project.name = "A project whose name is long enough to wrap on a phone screen"
    annotated_project.save(update_fields=["name"])
    run = analysis_run_create(project=annotated_project, kind="agreement", params={"n_boot": 0})
    run.refresh_from_db()
    assert run.status == "done", run.error
    UserFactory(username="staff-with-a-rather-long-name", role="admin")
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill("staff-with-a-rather-long-name")
    page.locator("#id_password").fill("pw-for-tests")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Manage")).to_be_visible()
    slug = annotated_project.slug
    for path in ("/projects/", f"/projects/{slug}/overview/", f"/projects/{slug}/analysis/"):
        page.goto(live_server.url + path)
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], (path, widths)
        # The header shows the account's name whole, apart from the links.
        who = page.locator(".topbar .who")
        expect(who).to_have_text("staff-with-a-rather-long-name")
        assert who.evaluate("e => e.scrollWidth <= e.clientWidth && e.getBoundingClientRect().right <= innerWidth")
    context.close()
