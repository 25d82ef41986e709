"""An annotator in Chromium: log in, do three HITs with the keyboard only, see progress."""

import pytest
from playwright.sync_api import expect

from annotation.models import Annotation
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
REASONS = [
    "A1 gives a concrete example while A2 stays vague.",
    "A2 explains the cost argument with real numbers.",
    "Both make the same point with the same strength.",
]


def test_three_hits_with_the_keyboard(live_server, browser):
    project = ProjectFactory(name="Keyboard project", redundancy=1)
    ItemFactory.create_batch(4, project=project)
    UserFactory(username="kb-annotator")
    page = browser.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/accounts/login/")
    page.keyboard.type("kb-annotator")
    page.keyboard.press("Tab")
    page.keyboard.type("pw-for-tests")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Your projects")).to_be_visible()
    page.goto(f"{live_server.url}/projects/{project.slug}/annotate/")
    page.evaluate("window.__sameDocument = true")

    done = page.get_by_test_id("done-count")
    prompts = []
    for i, (key, reason) in enumerate(zip(["1", "2", "3"], REASONS, strict=True)):
        expect(done).to_have_text(str(i))
        prompts.append(page.get_by_test_id("prompt").inner_text())
        page.keyboard.press("s")  # my standpoint: same as the stance
        page.keyboard.press(key)  # the choice; focus moves to the reason
        page.keyboard.type(reason)
        expect(page.locator("#reason-count")).to_have_class("counter ok")
        page.keyboard.press("Control+Enter")
        expect(done).to_have_text(str(i + 1))
        expect(page.get_by_role("status")).to_have_text("Saved.")

    # htmx swapped each next item in: the page itself was never reloaded.
    assert page.evaluate("window.__sameDocument") is True
    answers = list(Annotation.objects.order_by("pk"))
    assert [a.answer for a in answers] == [{"label": label, "standpoint": "same"} for label in ("a1", "a2", "equal")]
    assert [a.reason for a in answers] == REASONS
    assert all(a.client["input"] == "keyboard" and a.seconds is not None for a in answers)

    page.goto(f"{live_server.url}/projects/")
    expect(page.get_by_text("you answered 3 items")).to_be_visible()
    expect(page.get_by_role("progressbar").first).to_have_attribute("aria-valuenow", "75.0")
    page.close()
