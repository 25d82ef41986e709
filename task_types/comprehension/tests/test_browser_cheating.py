"""A cheating listener in Chromium: forged playback reports (audio never fetched, one byte of it
fetched, sent too early, a wrong length) are refused with a clear message and kept; a reload after starting the speech
shows it as started, not a fresh player; the transcript of a listening item is nowhere in the
page, the API's item or an error. Screenshots of each state go to /tmp/shots-listen/."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.importers import ParsedItem
from annotation.models import Annotation, Assignment, MediaUse, RefusedAnswer
from annotation.services import items_import
from annotation.services.media.files import media_import_file
from annotation.task_types import get_task_type
from tests.factories import ProjectFactory, UserFactory
from tests.support.audio import tone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("media_root")]
TASK = get_task_type("comprehension")
SHOTS = Path("/tmp/shots-listen")
SECRET = "Every punch to the head harms the brain of a boxer"
SENTENCES = [f"{SECRET}."] + [f"Sentence {i} of the speech argues at some length about boxing and the harm it does "
                               f"to those who take part in it, week after week." for i in range(2, 40)]


def project_of(mode, seconds=3.0):
    project = ProjectFactory(task_type="comprehension", redundancy=1, name=f"Comprehension ({mode})",
                             options=TASK.clean_options({"mode": mode}))
    clip = tone(seconds)
    media_import_file(project=project, data=io.BytesIO(clip), name="clip.wav", size=len(clip), key="clip.wav")
    record = {"id": "s1", "motion": "We should ban boxing",
              "speech": {"id": "s1", "speaker": "rachel", "stance": "pro", "audio": "clip.wav",
                         "transcript": " ".join(SENTENCES), "sentences": SENTENCES},
              "titles": [{"id": f"t{i}", "title": title} for i, title in enumerate(
                  ["boxing damages the brain", "boxing glorifies violence", "boxers are role models",
                   "a ban would drive boxing underground", "boxers know and accept the risks"], 1)]}
    items_import(project=project, parsed=[ParsedItem(1, TASK.clean_item(record))])
    return project


def worker_page(browser, live_server, project, username, *, block_audio=False):
    UserFactory(username=username)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(15_000)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    if block_audio:
        page.route("**/media/**", lambda route: route.abort())
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill("pw-for-tests")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Your projects")).to_be_visible()
    page.goto(f"{live_server.url}/projects/{project.slug}/annotate/")
    return page


def loaded(page):
    """Wait until the browser has the whole clip: no request of it is still under way."""
    page.wait_for_function("() => document.querySelector('audio').readyState >= 4")


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    # Playwright hides the caret with an injected style, which the Content-Security-Policy blocks.
    page.screenshot(path=str(SHOTS / f"{name}.png"), caret="initial")


def forge(page, report):
    """What a worker with the developer tools does: tell the server playback started, put a
    report in the form, silence the page's own check, and send."""
    page.evaluate("""async (report) => {
        const section = document.querySelector("[data-player]");
        const token = document.querySelector('#task-form input[name="csrfmiddlewaretoken"]').value;
        await fetch(section.dataset.playsUrl, {method: "POST", headers: {"Content-Type": "application/json",
            "X-CSRFToken": token}, body: JSON.stringify({key: section.dataset.key, play: 1})});
        document.querySelector("[data-playback]").value = JSON.stringify(report);
        section.dataset.problem = "";
        // What the page switched off for an item it knows cannot be answered, switched on again.
        document.querySelectorAll("#task-form [disabled]").forEach((el) => { el.disabled = false; });
    }""", report)
    page.locator('input[name="titles"]').first.check()
    page.get_by_test_id("submit").click()


def whole(length, *, took=None):
    took = length if took is None else took
    return {"events": [{"type": "play", "t": 0, "at": 300}, {"type": "ended", "t": length, "at": 300 + round(took * 1000)}],
            "heard": 1.0, "duration": length}


def test_forged_reports_are_refused_with_a_clear_message_and_kept(live_server, browser):
    project = project_of("listening", seconds=8.0)
    # Never fetched: the page's audio requests are blocked, as a worker who never listened.
    page = worker_page(browser, live_server, project, "cheater", block_audio=True)
    forge(page, whole(8.0))
    error = page.get_by_test_id("playback-error")
    expect(error).to_contain_text("The speech's audio was never loaded for this item")
    assignment = Assignment.objects.get(project=project)
    assert not MediaUse.objects.filter(assignment=assignment, fetches__gt=0).exists()

    # Fetched, but one byte of it: the clip never reached the player.
    src = page.locator("audio").get_attribute("src")
    assert "clip.wav" not in src and "clip.wav" not in page.content()
    assert page.request.get(f"{live_server.url}{src}", headers={"Range": "bytes=0-0"}).status == 206
    forge(page, whole(8.0))
    expect(error).to_contain_text("Only 0% of the audio was sent for this item")

    # Fetched this time, but a whole listen reported at once.
    page.unroute("**/media/**")
    page.reload()
    loaded(page)
    assert MediaUse.objects.get(assignment=assignment).fetches >= 1
    forge(page, whole(8.0))
    expect(error).to_contain_text("claims 8.0 s of the speech heard, but only")
    # A length that is not the clip's.
    forge(page, whole(1.0))
    expect(error).to_contain_text("gives the speech's length as 1 s; the speech lasts 8 s")
    expect(page.get_by_test_id("player-status")).to_contain_text("You already started this speech for this item.")
    shot(page, "listening-after-refusal")

    assert not Annotation.objects.exists()
    refusals = [r.errors["playback"] for r in RefusedAnswer.objects.filter(assignment=assignment).order_by("at")]
    assert [r.split(":")[0].split(",")[0][:30] for r in refusals] == [
        "The speech's audio was never l", "Only 0% of the audio was sent ", "The playback report claims 8.0",
        "The playback report gives the "]
    assert page.errors == []
    page.close()


def test_a_reload_after_starting_shows_the_speech_as_started(live_server, browser):
    project = project_of("listening", seconds=4.0)
    page = worker_page(browser, live_server, project, "reloader")
    loaded(page)
    expect(page.get_by_test_id("play")).to_be_enabled()
    shot(page, "listening-fresh")
    page.get_by_test_id("play").click()
    page.wait_for_timeout(800)
    page.reload()
    status = page.get_by_test_id("player-status")
    expect(status).to_have_text("You already started this speech for this item. It plays once, so it cannot be played again.")
    expect(page.get_by_test_id("play")).to_be_disabled()
    expect(page.get_by_test_id("play")).to_have_text("Played")
    shot(page, "listening-after-reload")
    assert MediaUse.objects.get().plays == 1
    assert page.errors == []
    page.close()


def test_a_reload_after_the_speech_ended_keeps_what_was_heard(live_server, browser):
    project = project_of("listening", seconds=1.5)
    page = worker_page(browser, live_server, project, "patient")
    loaded(page)
    page.get_by_test_id("play").click()
    expect(page.get_by_text("The speech ended.")).to_be_visible()
    page.reload()
    expect(page.get_by_test_id("player-status")).to_have_text("You heard the speech.")
    page.keyboard.press("1")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("nothing-left")).to_be_visible()
    playback = Annotation.objects.get().client["metrics"]["playback"]
    assert [e["type"] for e in playback["events"]] == ["play", "ended"] and playback["server"]["plays"] == 1
    # What Chromium fetched for its player, over however many requests, is the whole clip.
    use = MediaUse.objects.get()
    assert playback["server"]["served"] == 1.0 and use.served == [[0, use.media.size]]
    page.close()


def test_the_transcript_of_a_listening_item_is_nowhere(live_server, browser):
    project = project_of("listening")
    page = worker_page(browser, live_server, project, "snoop")
    loaded(page)
    html = page.content()
    nxt = page.request.post(f"{live_server.url}/api/projects/{project.slug}/assignments/next/",
                            headers={"X-CSRFToken": page.locator('input[name="csrfmiddlewaretoken"]').first.input_value()})
    assert nxt.ok
    item = nxt.json()["assignment"]
    refused = page.request.post(f"{live_server.url}/api/assignments/{item['id']}/submit/", data=json.dumps(
        {"titles": ["nope"], "playback": whole(3.0)}), headers={
        "Content-Type": "application/json",
        "X-CSRFToken": page.locator('input[name="csrfmiddlewaretoken"]').first.input_value()})
    assert refused.status == 400
    forge(page, whole(3.0))
    expect(page.get_by_test_id("playback-error")).to_be_visible()
    for text in (html, nxt.text(), refused.text(), page.content()):
        assert SECRET not in text and "Sentence 2 of the speech" not in text
    assert "transcript" not in item["item"]["payload"]["speech"]
    page.close()


def test_the_reading_page_keeps_the_titles_beside_the_transcript(live_server, browser):
    project = project_of("reading")
    page = worker_page(browser, live_server, project, "reader")
    expect(page.get_by_test_id("transcript")).to_contain_text(SECRET)
    titles = page.locator("fieldset.choices")
    page.get_by_test_id("transcript").hover()
    page.mouse.wheel(0, 2000)
    expect(titles).to_be_in_viewport()
    text_box, titles_box = page.get_by_test_id("transcript").bounding_box(), titles.bounding_box()
    assert titles_box["x"] > text_box["x"] + text_box["width"] - 1  # side by side
    assert "play (and pause" not in page.content()
    shot(page, "reading")
    page.close()
