"""The annotation page's authenticity signals in Chromium: text pasted into the reason, the window
losing focus and an automated browser (Playwright's Chromium reports ``navigator.webdriver``)
reach the stored answer, counted per item."""

import pytest
from playwright.sync_api import expect

from annotation.models import Annotation
from tests.annotation.views.test_browser_annotator_page import logged_in
from tests.factories import ItemFactory, ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASTED = "A1 gives a concrete example while A2 stays vague."


def paste(page, text):
    """A paste into the focused field, as the browser fires it (clipboard access needs a user)."""
    page.evaluate("""(text) => {
        const field = document.activeElement;
        const data = new DataTransfer();
        data.setData("text/plain", text);
        field.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true}));
        field.value += text;
        field.dispatchEvent(new Event("input", {bubbles: true}));
    }""", text)


def test_signals_go_with_each_answer(live_server, browser):
    project = ProjectFactory(name="Signals", redundancy=1)
    ItemFactory.create_batch(2, project=project)
    context, page = logged_in(browser, live_server, "signals")
    page.goto(f"{live_server.url}/projects/{project.slug}/annotate/")
    page.keyboard.press("s")
    page.keyboard.press("1")
    page.locator("textarea").focus()
    paste(page, PASTED)
    page.evaluate("window.dispatchEvent(new Event('blur'))")
    page.evaluate("window.dispatchEvent(new Event('blur'))")
    page.get_by_test_id("submit").click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    # The second item starts from zero: typed, not pasted.
    page.keyboard.press("s")
    page.keyboard.press("2")
    page.locator("textarea").fill("A2 explains the cost argument with real numbers.")
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("done-count")).to_have_text("2")
    first, second = Annotation.objects.order_by("pk")
    assert first.client["signals"]["pasted"] == len(PASTED) and first.client["signals"]["blurs"] == 2
    assert first.client["signals"]["webdriver"] is True and first.client["signals"]["hidden_ms"] == 0
    assert second.client["signals"]["pasted"] == 0 and second.client["signals"]["blurs"] == 0
    context.close()
