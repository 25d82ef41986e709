"""A judge in Chromium compares two key-point sets with their prevalence and picks one with the
keyboard; the page shows no system's name."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.importers import ParsedItem
from annotation.models import Annotation, Assignment
from annotation.services import items_import
from annotation.task_types import get_task_type
from tests.annotation.views.test_browser import open_page
from tests.factories import ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TASK = get_task_type("key_point_sets")
SHOTS = Path("/tmp/shots-kp2")


def test_choose_the_clearest_set_with_the_keyboard(live_server, browser):
    project = ProjectFactory(task_type="key_point_sets", redundancy=1, name="Key-point sets")
    records = TASK.example().records
    items_import(project=project, parsed=[ParsedItem(i, TASK.clean_item(r)) for i, r in enumerate(records, 1)])
    page = open_page(browser, live_server, project, username="judge")
    expect(page.get_by_test_id("key-point-set")).to_have_count(2)
    expect(page.get_by_test_id("topic")).to_have_text("We should abandon the use of school uniform")
    # The sets in the order drawn for the assignment: set "a" holds the 40% key point.
    order = Assignment.objects.get(worker__username="judge").shown_order["sets"]
    expect(page.get_by_test_id("key-point-set").nth(order.index("a"))).to_contain_text("40%")
    assert "system-1" not in page.content()
    SHOTS.mkdir(parents=True, exist_ok=True)
    # Playwright hides the caret with an injected style, which the Content-Security-Policy blocks.
    page.screenshot(path=str(SHOTS / "ranking-item.png"), full_page=True, caret="initial")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("Choose the clearest and most informative set.")).to_be_visible()
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("2")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    assert Annotation.objects.get().answer == {"choice": order[1]}  # the second set on screen
    assert page.errors == []
    page.close()
