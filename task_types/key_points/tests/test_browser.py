"""An annotator in Chromium marks key points, and None, on the demo project with the keyboard."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Annotation, Project
from annotation.task_types import get_task_type
from tests.factories import demo_context

pytestmark = [pytest.mark.browser, pytest.mark.shared_data, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp/shots-kp")


def test_mark_key_points_and_none_with_the_keyboard_on_the_demo(live_server, browser, shared_data):
    ctx = demo_context(shared_data)
    get_task_type("key_points").demo(ctx)
    project = Project.objects.get(slug="key-points-demo")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill("demo-annotator1")
    page.locator("#id_password").fill("pw-for-tests")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Your projects")).to_be_visible()
    page.goto(f"{live_server.url}/projects/{project.slug}/annotate/")
    expect(page.get_by_test_id("topic")).to_have_text(project.items.order_by("position").first().payload["topic"])
    first = page.get_by_test_id("argument").inner_text()
    item = project.items.get(payload__argument=first)
    kps = item.payload["key_points"]
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("1")
    page.keyboard.press("2")
    SHOTS.mkdir(parents=True, exist_ok=True)
    # Playwright hides the caret with an injected style, which the Content-Security-Policy blocks.
    page.screenshot(path=str(SHOTS / "item-1280x800.png"), full_page=True, caret="initial")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    # Keys 1 and 2: the first two key points on screen, in the order drawn for the assignment;
    # the answer names them by id, in the item's order.
    annotation = Annotation.objects.get()
    shown = annotation.assignment.shown_order["key_points"]
    assert [kp["id"] for kp in kps if kp["id"] in shown[:2]] == annotation.answer["key_points"]
    assert annotation.answer["none"] is False and len(annotation.answer["key_points"]) == 2
    # None unmarks the key points marked before it.
    page.keyboard.press("1")
    page.keyboard.press("0")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("done-count")).to_have_text("2")
    assert Annotation.objects.order_by("pk").last().answer == {"key_points": [], "none": True}
    assert errors == []
    page.close()
