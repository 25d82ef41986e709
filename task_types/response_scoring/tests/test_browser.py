"""A rater in Chromium: reads a SAMPLE response, scores it with the keyboard and sends a comment;
in a listening project the score waits for the response to play to its end."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.importers import ParsedItem
from annotation.models import Annotation
from annotation.services import items_import
from annotation.services.media.files import media_import_file
from task_types.response_scoring.services import responses_import
from task_types.response_scoring.tests.factories import SAMPLE, TASK, record
from tests.annotation.views.test_browser import open_page
from tests.factories import ProjectFactory
from tests.support.audio import tone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("media_root")]
SHOTS = Path("/tmp/shots-rs")



def test_a_rater_reads_the_response_and_scores_it_with_the_keyboard(live_server, browser):
    project = ProjectFactory(task_type="response_scoring", redundancy=1, name="SAMPLE response scoring",
                             options=TASK.clean_options({"presentation": "reading", "transcript": "manual"}))
    responses_import(project=project, folder=SAMPLE)
    page = open_page(browser, live_server, project, username="rater")
    page.set_viewport_size({"width": 1280, "height": 800})
    expect(page.get_by_test_id("prompt")).to_contain_text("SAMPLE prompt")
    expect(page.locator("#task-form").get_by_text("Mostly complete and appropriate")).to_be_visible()
    transcript = page.get_by_test_id("transcript").inner_text()
    page.keyboard.press("Control+Enter")  # no score yet: stopped in the page
    expect(page.get_by_text("Choose one score from 1 to 4.")).to_be_visible()
    page.keyboard.press("3")
    expect(page.locator('input[name="score"][value="3"]')).to_be_checked()
    page.get_by_test_id("comment").fill("Main facts, few details.")
    SHOTS.mkdir(parents=True, exist_ok=True)
    # Playwright hides the caret with an injected style, which the Content-Security-Policy blocks.
    page.screenshot(path=str(SHOTS / "rater-scores-a-response.png"), caret="initial")
    page.get_by_test_id("comment").press("Control+Enter")
    expect(page.get_by_test_id("transcript")).not_to_have_text(transcript)
    annotation = Annotation.objects.get()
    assert annotation.answer == {"score": "3", "comment": "Main facts, few details.", "mode": "reading"}
    assert annotation.assignment.item.payload["response"]["transcript"].strip() == transcript.strip()
    assert page.errors == []
    page.close()


def test_a_listener_scores_once_the_response_has_played(live_server, browser):
    project = ProjectFactory(task_type="response_scoring", redundancy=1,
                             options=TASK.clean_options({"presentation": "listening"}))
    clip = tone()
    media_import_file(project=project, data=io.BytesIO(clip), name="clip.wav", size=len(clip), key="clip.wav")
    items_import(project=project, parsed=[ParsedItem(1, TASK.clean_item(record(audio="clip.wav")))])
    page = open_page(browser, live_server, project, username="listener")
    page.keyboard.press("2")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("Play the speech before answering.")).to_be_visible()
    page.keyboard.press("p")
    expect(page.get_by_text("The speech ended.")).to_be_visible(timeout=15_000)
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    annotation = Annotation.objects.get()
    assert annotation.answer["score"] == "2" and annotation.client["metrics"]["playback"]["events"][0]["type"] == "play"
    assert page.errors == []
    page.close()
