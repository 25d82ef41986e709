"""An annotator in Chromium picks the counter-speech and its reasons with the keyboard."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.importers import ParsedItem
from annotation.models import Annotation
from annotation.services import items_import
from annotation.task_types import get_task_type
from tests.annotation.views.test_browser import open_page
from tests.factories import ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TASK = get_task_type("counter_speech")


def project_with_questions(layout):
    project = ProjectFactory(task_type="counter_speech", redundancy=1, name="Counter project",
                             options=TASK.clean_options({"layout": layout}))
    records = TASK.example().records
    items_import(project=project, parsed=[ParsedItem(i, TASK.clean_item(r)) for i, r in enumerate(records, 1)])
    return project


def test_choose_the_counter_and_say_why_with_the_keyboard(live_server, browser):
    project = project_with_questions("side_by_side")
    page = open_page(browser, live_server, project, username="chooser")
    expect(page.get_by_test_id("candidate")).to_have_count(2)
    expect(page.get_by_test_id("supporting")).to_contain_text("Boxing harms the brain")
    # Nothing chosen yet: the page names both missing fields.
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("Choose the speech that responds to the supporting speech.")).to_be_visible()
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("1")
    page.keyboard.press("q")
    page.keyboard.press("x")  # "other" ticks and moves to its text box
    page.keyboard.type("It answers the helmet point")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    annotation = Annotation.objects.get()
    # Key 1 chose the first candidate on screen, in the order drawn for the assignment.
    assert annotation.answer == {"choice": annotation.assignment.shown_order["candidates"][0], "reasons": ["quote", "other"]}
    assert annotation.reason == "It answers the helmet point" and annotation.client["input"] == "keyboard"
    # The second question: a guess, said so.
    page.keyboard.press("2")
    page.keyboard.press("g")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    last = Annotation.objects.order_by("pk").last()
    assert last.answer == {"choice": last.assignment.shown_order["candidates"][1], "reasons": ["guess"]}
    assert page.errors == []
    page.close()


def test_one_at_a_time_opens_only_the_first_candidate(live_server, browser):
    project = project_with_questions("one_at_a_time")
    page = open_page(browser, live_server, project, username="reader")
    candidates = page.get_by_test_id("candidate")
    expect(candidates.nth(0)).to_have_attribute("open", "")
    expect(candidates.nth(1)).not_to_have_attribute("open", "")
    page.close()


def _long_question_project(layout):
    paragraph = ("Boxing harms the brain of every boxer, and the harm adds up over a career of bouts. " * 6).strip()
    long_text = "\n\n".join([paragraph] * 8)
    record = {"id": "long", "motion": "We should ban boxing",
              "speech": {"id": "p", "speaker": "rachel", "transcript": long_text, "audio": ""},
              "candidates": [{"id": c, "speaker": f"s{c}", "transcript": long_text, "audio": ""} for c in "abc"],
              "gold": {"counters": ["a"], "kind": ""}}
    project = ProjectFactory(task_type="counter_speech", redundancy=1, name="Counter layout",
                             options=TASK.clean_options({"layout": layout, "bonus_per_correct": "0.10"}))
    items_import(project=project, parsed=[ParsedItem(1, TASK.clean_item(record))])
    return project


SCROLL_BOXES = """() => [...document.querySelectorAll('.speech-text, .candidate, .candidate-list, .speech-panel')]
  .filter(e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowY) && e.scrollHeight > e.clientHeight + 1)
  .length"""


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_long_speeches_read_in_full_height_columns_without_nested_scrolling(live_server, browser, size, tmp_path):
    project = _long_question_project("side_by_side")
    page = open_page(browser, live_server, project, username=f"layout{size[0]}")
    page.set_viewport_size({"width": size[0], "height": size[1]})
    expect(page.get_by_test_id("candidate")).to_have_count(3)
    # The speeches grow with their text: the page scrolls, no box inside it does.
    assert page.evaluate(SCROLL_BOXES) == 0
    tops = [box["y"] for box in (page.get_by_test_id("candidate").nth(i).bounding_box() for i in range(3))]
    if size[0] >= 1000:
        assert len({round(t) for t in tops}) == 1  # three columns side by side
    else:
        assert tops == sorted(tops) and tops[0] < tops[1] < tops[2]  # stacked, one after another
    # Screenshots to look at (COUNTER_SHOTS_DIR, else the test's own folder).
    shots = Path(os.environ.get("COUNTER_SHOTS_DIR") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    # Playwright hides the caret with an injected style, which the Content-Security-Policy blocks.
    page.screenshot(path=str(shots / f"item-{size[0]}x{size[1]}.png"), caret="initial")
    page.evaluate("document.querySelector('.candidate-list').scrollIntoView()")
    page.screenshot(path=str(shots / f"item-{size[0]}x{size[1]}-candidates.png"), caret="initial")
    page.close()
