"""The annotator's page in Chromium: changing the last answer, the phone layout, and a
marketplace worker from the study link to the completion code."""

import pytest
from playwright.sync_api import expect

from annotation.models import Annotation, AnnotationRevision, Consent
from tests.annotation.views.test_browser import REASONS, answer_with_keys, label_of_key, open_page
from tests.factories import ItemFactory, ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_changing_the_last_answer(live_server, browser):
    project = ProjectFactory(redundancy=1, guidelines="## Judge *convincingness*\n\nNot truth.")
    ItemFactory.create_batch(3, project=project)
    page = open_page(browser, live_server, project)
    # The guidelines are on the page, folded away until asked for.
    panel = page.get_by_test_id("guidelines-panel")
    expect(panel.get_by_role("heading", name="Judge convincingness")).to_be_hidden()
    panel.locator("summary").click()
    expect(panel.get_by_role("heading", name="Judge convincingness")).to_be_visible()
    panel.locator("summary").click()

    answer_with_keys(page, "1", REASONS[0])
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    second_prompt_item = page.locator("#task-form").get_attribute("data-assignment")
    page.get_by_test_id("change-last").click()
    expect(page.get_by_test_id("editing")).to_be_visible()
    # The change form shows the sides as they were drawn for the assignment.
    first_assignment = Annotation.objects.get().assignment
    stored = label_of_key(first_assignment, "1")
    expect(page.locator(f"input[name=label][value={stored}]")).to_be_checked()
    expect(page.locator("textarea")).to_have_value(REASONS[0])
    page.keyboard.press("2")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_role("status").filter(has_text="Your answer was changed.")).to_be_visible()
    # Back on the item that was open before.
    expect(page.locator("#task-form")).to_have_attribute("data-assignment", second_prompt_item)
    first = Annotation.objects.get()
    assert first.answer["label"] == label_of_key(first_assignment, "2") and first.version == 2
    assert AnnotationRevision.objects.get(annotation=first).answer["label"] == stored
    assert page.evaluate("window.__sameDocument") is True and page.errors == []
    page.close()


def test_the_phone_layout(live_server, browser):
    project = ProjectFactory(redundancy=1, max_items_per_worker=5)
    ItemFactory.create_batch(2, project=project)
    context = browser.new_context(**PHONE)
    page = open_page(context, live_server, project)
    # No key hints on a touch screen.
    for hint in page.locator(".key-hint").all():
        expect(hint).to_be_hidden()
    expect(page.get_by_text("You answered 0 of 5")).to_be_visible()
    # Large tap targets.
    for label in page.locator("fieldset.choices label").all():
        assert label.bounding_box()["height"] >= 44
    submit = page.get_by_test_id("submit")
    assert submit.bounding_box()["height"] >= 44
    # The submit bar stays at the bottom of the screen while the item is longer than it.
    box = submit.bounding_box()
    assert box["y"] + box["height"] <= 844 and box["y"] > 700
    # The header gets out of the way when reading down and comes back when scrolling up.
    page.mouse.wheel(0, 500)
    page.wait_for_function("() => document.body.classList.contains('head-hidden')")
    page.wait_for_function("() => document.querySelector('.topbar').getBoundingClientRect().bottom <= 0")
    page.mouse.wheel(0, -200)
    page.wait_for_function("() => document.querySelector('.topbar').getBoundingClientRect().top >= 0")
    # Tapping through an answer works as on a desktop.
    page.get_by_role("radio", name="A1 is more convincing").tap()
    page.locator("textarea").fill(REASONS[0])
    page.get_by_role("radio", name="No standpoint").tap()
    submit.tap()
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    assert page.errors == []
    context.close()


def test_a_marketplace_worker_from_link_to_completion_code(live_server, browser):
    project = ProjectFactory(open_to_all=False, external_entry=True, panel="prolific", redundancy=1, completion_code="PAY-4242",
                             completion_url="https://app.prolific.com/submissions/complete?cc=PAY-4242",
                             consent_text="We keep your answers for research.")
    ItemFactory(project=project)
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/start/{project.slug}/?PROLIFIC_PID=5f00aa&STUDY_ID=st&SESSION_ID=se")
    expect(page.get_by_test_id("welcome")).to_be_visible()
    expect(page.get_by_text("We keep your answers for research.")).to_be_visible()
    expect(page.get_by_role("link", name="Projects")).to_have_count(0)
    page.get_by_role("checkbox").check()
    page.get_by_test_id("start").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(project.name)
    # The heading shows while the page still loads; its keys work once its scripts have run.
    page.wait_for_load_state("load")
    assert Consent.objects.count() == 1
    expect(page.get_by_role("link", name="Projects")).to_have_count(0)
    page.keyboard.press("n")
    answer_with_keys(page, "1", REASONS[0])
    expect(page.get_by_test_id("completion-code")).to_have_text("PAY-4242")
    page.get_by_test_id("copy-code").click()
    expect(page.get_by_text("Copied.")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == "PAY-4242"
    expect(page.get_by_test_id("completion-link")).to_have_attribute(
        "href", "https://app.prolific.com/submissions/complete?cc=PAY-4242")
    assert Annotation.objects.get().client["marketplace"] == {
        "STUDY_ID": "st", "SESSION_ID": "se", "PROLIFIC_PID": "5f00aa"}
    context.close()


def test_a_failed_request_without_a_form_on_screen_is_reported(live_server, browser):
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    page = open_page(browser, live_server, project)
    answer_with_keys(page, "3", REASONS[2])
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    page.route("**/edit/", lambda route: route.fulfill(status=502, body="Bad gateway"))
    page.get_by_test_id("change-last").click()
    expect(page.get_by_role("alert")).to_contain_text("could not take this (status 502)")
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    page.close()
