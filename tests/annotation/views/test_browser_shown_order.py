"""In Chromium, what a worker sees is the order stored with their assignment, and the key that
chooses the first option shown stores that option's id."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotation.importers import ParsedItem
from annotation.models import Annotation, Assignment
from annotation.services import items_import
from annotation.task_types import get_task_type
from tests.annotation.views.test_browser import open_page
from tests.factories import ItemFactory, ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
REASON = "The left one gives a concrete reason, the other repeats itself."


def test_pairwise_sides_on_screen_are_the_stored_ones(live_server, browser):
    project = ProjectFactory(redundancy=8, name="Drawn sides")
    item = ItemFactory(project=project)
    texts = {"a1": item.payload["arg1"]["text"], "a2": item.payload["arg2"]["text"]}
    seen = set()
    for n in range(6):
        page = open_page(browser, live_server, project, username=f"sides{n}")
        shown = [t.strip() for t in page.locator(".pair .argument .text").all_inner_texts()]
        order = Assignment.objects.get(worker__username=f"sides{n}").shown_order["sides"]
        assert shown == [texts[order[0]], texts[order[1]]]
        seen.add(order[0])
        # Key 1 is "A1 is more convincing": the argument on the left, stored by its import side.
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("n")
        page.keyboard.press("1")
        page.keyboard.type(REASON)
        page.keyboard.press("Control+Enter")
        expect(page.get_by_test_id("done-count")).to_have_text("1")
        assert Annotation.objects.get(assignment__worker__username=f"sides{n}").answer["label"] == order[0]
        assert page.errors == []
        page.close()
    assert seen == {"a1", "a2"}  # six draws: both sides came first at least once (p = 1/32 otherwise)


def test_candidates_on_screen_follow_the_stored_order_after_a_reload(live_server, browser):
    task = get_task_type("counter_speech")
    project = ProjectFactory(task_type="counter_speech", redundancy=4, name="Drawn candidates",
                             options=task.clean_options({}))
    record = {"id": "q", "motion": "We should ban boxing",
              "speech": {"id": "p", "speaker": "rachel", "transcript": "Boxing harms the brain.", "audio": ""},
              "candidates": [{"id": c, "speaker": f"s{c}", "transcript": f"Speech text {c}.", "audio": ""}
                             for c in ("ca", "cb", "cc", "cd")],
              "gold": {"counters": ["ca"], "kind": ""}}
    items_import(project=project, parsed=[ParsedItem(1, task.clean_item(record))])
    page = open_page(browser, live_server, project, username="orderer")
    order = Assignment.objects.get(worker__username="orderer").shown_order["candidates"]
    values = lambda: page.locator('input[name="choice"]').evaluate_all("els => els.map(e => e.value)")  # noqa: E731
    assert values() == order
    texts = [t.strip() for t in page.get_by_test_id("candidate").locator(".speech-text").all_inner_texts()]
    assert texts == [f"Speech text {c}." for c in order]
    page.reload()
    assert values() == order
    page.close()
