"""In Chromium, what a worker sees is the order stored with their assignment, the key that
chooses the first option shown stores that option's id, and no address the page asks for or
text it shows names a media file or the systems an item compares."""

from __future__ import annotations

import io

import pytest
from playwright.sync_api import expect

from annotation.importers import ParsedItem
from annotation.models import Annotation, Assignment
from annotation.services import items_import
from annotation.services.media.files import media_import_file
from annotation.task_types import get_task_type
from tests.annotation.views.test_browser import open_page
from tests.factories import ItemFactory, ProjectFactory
from tests.support.audio import tone

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



def _watch(page) -> list[str]:
    """Every address the page asks for (documents, htmx, media, scripts)."""
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    return urls


def test_no_address_or_item_id_names_a_file_or_a_system(live_server, browser):
    # Counter speech with recordings named as the IBM release names them: the opponent's name in
    # a candidate's file name is the true counter.
    task = get_task_type("counter_speech")
    project = ProjectFactory(task_type="counter_speech", redundancy=1, name="Named recordings",
                             options=task.clean_options({}))
    names = {"p": "daniel_1661_school-uniforms_pro_opening.wav",
             "ca": "mary_1661_school-uniforms_con_opening_daniel.wav",
             "cb": "george_1702_boxing_con_opening_rachel.wav"}
    for name in names.values():
        clip = tone(0.5)
        media_import_file(project=project, data=io.BytesIO(clip), name=name, size=len(clip), key=name)
    record = {"id": "daniel_1661_vs_mary", "motion": "We should abandon the use of school uniform",
              "speech": {"id": "p", "speaker": "daniel", "transcript": "Uniforms help.", "audio": names["p"]},
              "candidates": [{"id": c, "speaker": f"s{c}", "transcript": f"Speech {c}.", "audio": names[c]}
                             for c in ("ca", "cb")],
              "gold": {"counters": ["ca"], "kind": ""}}
    items_import(project=project, parsed=[ParsedItem(1, task.clean_item(record))])
    page = open_page(browser, live_server, project, username="listener")
    urls = _watch(page)
    page.reload()
    sources = page.locator("audio").evaluate_all("els => els.map(e => e.src)")
    assert len(sources) == 3
    for audio in page.locator("audio").all():  # fetch every clip as the browser plays it
        audio.evaluate("a => { a.preload = 'auto'; a.load(); }")
    page.wait_for_timeout(500)
    html = page.content()
    for telltale in [*names.values(), "daniel_1661", "con_opening", "daniel_1661_vs_mary"]:
        assert telltale not in html, telltale
        assert not any(telltale in url for url in [*urls, *sources]), telltale
    page.close()

    # Key-point sets: the default item id names the systems compared.
    kps = get_task_type("key_point_sets")
    project = ProjectFactory(task_type="key_point_sets", redundancy=1, name="Sets")
    records = [{k: v for k, v in r.items() if k != "id"} for r in kps.example().records]
    for r in records:
        for s in r["sets"]:
            s["system"] = f"secret-system-{s['system']}"
    items_import(project=project, parsed=[ParsedItem(n, kps.clean_item(r)) for n, r in enumerate(records, 1)])
    assert all("secret-system" in i.external_id for i in project.items.all())
    page = open_page(browser, live_server, project, username="judge")
    urls = _watch(page)
    page.reload()
    order = Assignment.objects.get(worker__username="judge").shown_order["sets"]
    assert page.locator('input[name="choice"]').evaluate_all("els => els.map(e => e.value)") == order
    page.keyboard.press("1")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("done-count")).to_have_text("1")
    for html in (page.content(),):
        assert "secret-system" not in html and "uniform|" not in html.lower()
    assert not any("secret-system" in url for url in urls)
    page.close()
