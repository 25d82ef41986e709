"""A listener in Chromium: the answer waits for the speech to end, the clip plays to its end
once, titles are ticked with the keyboard (None unticks them), and the playback is recorded."""

from __future__ import annotations

import io

import pytest
from playwright.sync_api import expect

from annotation.importers import ParsedItem
from annotation.models import Annotation
from annotation.services import items_import
from annotation.services.media.files import media_import_file
from annotation.task_types import get_task_type
from tests.annotation.views.test_browser import open_page
from tests.factories import ProjectFactory
from tests.support.audio import tone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("media_root")]
TASK = get_task_type("comprehension")



def listening_project(**options):
    project = ProjectFactory(task_type="comprehension", redundancy=1, name="Listening project",
                             options=TASK.clean_options({"mode": "listening", **options}))
    clip = tone()
    media_import_file(project=project, data=io.BytesIO(clip), name="clip.wav", size=len(clip), key="clip.wav")
    record = {"id": "s1", "motion": "We should ban boxing",
              "speech": {"id": "s1", "speaker": "rachel", "stance": "pro", "audio": "clip.wav", "transcript": "…"},
              "titles": [{"id": "t1", "title": "boxing damages the brain"},
                         {"id": "t2", "title": "boxing glorifies violence"},
                         {"id": "t3", "title": "boxers are role models"}]}
    items_import(project=project, parsed=[ParsedItem(1, TASK.clean_item(record))])
    return project


def test_play_to_the_end_then_pick_titles_with_the_keyboard(live_server, browser):
    project = listening_project()
    page = open_page(browser, live_server, project, username="listener")
    expect(page.get_by_test_id("motion")).to_have_text("We should ban boxing")
    expect(page.get_by_text("The speaker argued that")).to_have_count(3)

    # Sending before the speech ended is stopped in the page, with the reason.
    page.keyboard.press("1")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("Play the speech before answering.")).to_be_visible()
    assert not Annotation.objects.exists()

    page.keyboard.press("p")  # play; the project allows no pause, so the button is disabled
    expect(page.get_by_test_id("play")).to_be_disabled()
    expect(page.get_by_text("The speech ended.")).to_be_visible(timeout=15_000)
    expect(page.get_by_test_id("play")).to_have_text("Played")  # plays once

    boxes = page.locator('input[name="titles"]')
    page.keyboard.press("3")
    expect(boxes.nth(0)).to_be_checked()
    expect(boxes.nth(2)).to_be_checked()
    page.keyboard.press("0")  # None unticks the titles
    expect(boxes.nth(3)).to_be_checked()
    expect(boxes.nth(0)).not_to_be_checked()
    page.keyboard.press("1")  # a title unticks None
    page.keyboard.press("3")
    expect(boxes.nth(3)).not_to_be_checked()
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("nothing-left")).to_be_visible()

    annotation = Annotation.objects.get()
    # Keys 1 and 3 tick the first and third titles on screen, in the order drawn for the
    # assignment; the answer names them by id, in the item's order.
    shown = annotation.assignment.shown_order["titles"]
    assert annotation.answer == {"titles": sorted([shown[0], shown[2]]), "none": False, "mode": "listening"}
    playback = annotation.client["metrics"]["playback"]
    assert [e["type"] for e in playback["events"]] == ["play", "ended"]
    assert playback["heard"] > 0.9 and playback["duration"] == pytest.approx(1.5, abs=0.1)
    assert annotation.client["input"] == "keyboard"
    assert page.errors == []
    page.close()


def test_a_non_member_gets_no_audio(live_server, browser):
    project = listening_project()
    project.open_to_all = False
    project.save(update_fields=["open_to_all"])
    page = open_page(browser, live_server, ProjectFactory(), username="outsider")
    response = page.request.get(f"{live_server.url}/projects/{project.slug}/media/clip.wav")
    assert response.status == 404
    page.close()


def test_replaying_is_not_seeking_and_a_refused_answer_keeps_what_was_heard(live_server, browser):
    project = listening_project(allow_replay=True)
    page = open_page(browser, live_server, project, username="replayer")
    play = page.get_by_test_id("play")
    play.click()
    expect(play).to_contain_text("Play again", timeout=15_000)
    play.click()  # the replay starts from the beginning: no seek is recorded
    expect(play).to_contain_text("Playing")
    expect(play).to_contain_text("Play again", timeout=15_000)
    # An id the item does not have gets past the page but not the server; the form comes back
    # with the speech marked as heard, so it need not (and cannot) be heard from scratch.
    page.locator('input[name="titles"]').first.evaluate("box => { box.value = 'forged'; box.checked = true; }")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("Unknown argument id: forged.")).to_be_visible()
    expect(page.get_by_text("You heard the speech. You may play it again.")).to_be_visible()
    page.locator('input[name="titles"]').nth(1).check()
    page.locator('input[name="titles"]').first.uncheck()
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    playback = Annotation.objects.get().client["metrics"]["playback"]
    assert [e["type"] for e in playback["events"]] == ["play", "ended", "play", "ended"]
    assert page.errors == []
    page.close()


def test_a_seek_the_project_does_not_allow_is_undone_and_not_reported(live_server, browser):
    project = listening_project(allow_pause=True)
    page = open_page(browser, live_server, project, username="seeker")
    page.get_by_test_id("play").click()
    page.wait_for_timeout(300)
    page.locator("audio").evaluate("a => { a.currentTime = 1.2; }")  # as media keys would
    expect(page.get_by_text("The speech ended.")).to_be_visible(timeout=15_000)
    page.keyboard.press("1")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    events = Annotation.objects.get().client["metrics"]["playback"]["events"]
    assert "seek" not in [e["type"] for e in events]
    page.close()
