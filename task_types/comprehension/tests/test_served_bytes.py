"""A clip counts as received only when the bytes the server sent for the assignment cover most of
it (MIN_SERVED of the file, as the union of every request's bytes): a client that asks for one
byte, waits as long as the speech lasts and then sends a consistent report is refused; a player
that fetches the whole file, in one request or in ranges, is believed."""

from __future__ import annotations

import html
import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from annotation.importers import ParsedItem
from annotation.models import Annotation, Assignment, MediaUse, RefusedAnswer
from annotation.services import items_import
from annotation.services.media.files import media_import_file
from annotation.task_types import get_task_type
from annotation.task_types.playback import MIN_SERVED
from tests.factories import ProjectFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]
TASK = get_task_type("comprehension")
CLIP = Path(__file__).resolve().parents[3] / "task_types/comprehension/data/james_121_ban-boxing_con_opening_rachel.mp3"
DATA = CLIP.read_bytes()
SIZE = len(DATA)
LENGTH = 43.076  # read from the clip's frames


def project_of(**options):
    project = ProjectFactory(task_type="comprehension", redundancy=2,
                             options=TASK.clean_options({"mode": "listening", **options}))
    media_import_file(project=project, data=io.BytesIO(DATA), name=CLIP.name, size=SIZE)
    record = {"id": "s1", "motion": "We should ban boxing",
              "speech": {"id": "s1", "speaker": "rachel", "stance": "pro", "audio": CLIP.name, "transcript": "Boxing."},
              "titles": [{"id": "t1", "title": "boxing damages the brain"}, {"id": "t2", "title": "boxing glorifies violence"}]}
    items_import(project=project, parsed=[ParsedItem(1, TASK.clean_item(record))])
    return project


@pytest.fixture
def opened(client):
    """A listener's item open in the page: (the assignment, the address its player fetches)."""
    project = project_of()
    client.force_login(UserFactory())
    page = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    return Assignment.objects.get(project=project), page.split('data-audio src="')[1].split('"')[0]


def fetch(client, url, first=None, last=None) -> int:
    """What a player does: ask for the bytes ``first``–``last`` (the whole file without) and read
    the answer to its end."""
    headers = {} if first is None else {"Range": f"bytes={first}-{'' if last is None else last}"}
    response = client.get(url, headers=headers)
    assert response.status_code == (200 if first is None else 206)
    b"".join(response.streaming_content)
    return response.status_code


def start_and_wait(client, assignment, *, heard=1.0):
    """Report the start of playback, then let the speech's length pass (the hand-out and the
    start moved back by as much), and send a report consistent in itself and with the times."""
    page = client.get(f"/projects/{assignment.project.slug}/annotate/").content.decode()
    ref = page.split('data-key="')[1].split('"')[0]
    assert client.post(f"/api/assignments/{assignment.pk}/plays/", {"key": ref, "play": 1},
                       content_type="application/json").status_code == 200
    now = timezone.now()
    Assignment.objects.filter(pk=assignment.pk).update(assigned_at=now - timedelta(seconds=LENGTH + 3))
    MediaUse.objects.filter(assignment=assignment).update(first_played_at=now - timedelta(seconds=LENGTH + 1))
    listened = round(LENGTH * heard * 1000)
    events = [{"type": "play", "t": 0, "at": 500}, {"type": "ended" if heard == 1.0 else "pause", "t": LENGTH * heard,
                                                      "at": 500 + listened}]
    report = {"events": events, "heard": heard, "duration": LENGTH}
    answer = client.post(f"/projects/{assignment.project.slug}/annotate/{assignment.pk}/submit/",
                         {"titles": ["t1"], "playback": json.dumps(report)}, HTTP_HX_REQUEST="true")
    return html.unescape(answer.content.decode())


def test_one_byte_then_a_wait_and_a_consistent_report_is_refused(client, opened):
    assignment, url = opened
    assert fetch(client, url, 0, 0) == 206
    use = MediaUse.objects.get(assignment=assignment)
    assert use.fetches == 1 and use.served == [[0, 1]]
    answer = start_and_wait(client, assignment)
    assert ("Only 0% of the audio was sent for this item (at least 90% is needed to hear it), so it "
            "cannot have been heard") in answer
    assert not Annotation.objects.exists()
    assert "Only 0%" in RefusedAnswer.objects.get(assignment=assignment).errors["playback"]


def test_the_whole_file_in_one_request_is_believed(client, opened):
    assignment, url = opened
    fetch(client, url)
    assert MediaUse.objects.get(assignment=assignment).served == [[0, SIZE]]
    start_and_wait(client, assignment)
    playback = Annotation.objects.get().client["metrics"]["playback"]
    assert playback["server"]["served"] == 1.0


def test_the_whole_file_in_ranges_is_believed(client, opened):
    assignment, url = opened
    third = SIZE // 3
    fetch(client, url, 0, third)  # as a player does: a first part, then on from where it stopped
    fetch(client, url, third - 100, 2 * third)
    fetch(client, url, 2 * third + 1)
    assert MediaUse.objects.get(assignment=assignment).served == [[0, SIZE]]
    start_and_wait(client, assignment)
    assert Annotation.objects.exists()


def test_the_same_half_twice_is_still_half(client, opened):
    assignment, url = opened
    half = SIZE // 2
    fetch(client, url, 0, half - 1)
    fetch(client, url, 0, half - 1)
    fetch(client, url, SIZE - 1000)
    assert MediaUse.objects.get(assignment=assignment).served == [[0, half], [SIZE - 1000, SIZE]]
    assert "Only 50% of the audio was sent" in start_and_wait(client, assignment)
    assert not Annotation.objects.exists()


def test_an_api_client_fetching_the_whole_clip_is_believed(client, opened):
    assignment, _ = opened
    ref = client.post(f"/api/projects/{assignment.project.slug}/assignments/next/").json()["assignment"]["item"]["payload"]["speech"]["audio"]
    part = client.get(f"/api/assignments/{assignment.pk}/media/{ref}", HTTP_RANGE="bytes=0-0")
    b"".join(part.streaming_content)
    plays = client.get(f"/api/assignments/{assignment.pk}/plays/").json()["media"][0]
    assert plays["served"] == round(1 / SIZE, 4) and plays["fetched"] is True
    whole = client.get(f"/api/assignments/{assignment.pk}/media/{ref}")
    assert b"".join(whole.streaming_content) == DATA
    assert client.get(f"/api/assignments/{assignment.pk}/plays/").json()["media"][0]["served"] == 1.0
    start_and_wait(client, assignment)
    assert Annotation.objects.exists()


def test_without_the_end_required_the_bytes_must_cover_what_was_heard(client):
    project = project_of(require_end=False, allow_pause=True)
    client.force_login(UserFactory())
    page = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    assignment = Assignment.objects.get(project=project)
    url = page.split('data-audio src="')[1].split('"')[0]
    fetch(client, url, 0, SIZE // 4)
    answer = start_and_wait(client, assignment, heard=0.5)
    assert f"(at least {round(MIN_SERVED * 50)}% is needed to hear it)" in answer
    fetch(client, url, SIZE // 4, SIZE // 2)
    start_and_wait(client, assignment, heard=0.5)
    assert Annotation.objects.exists()


def test_no_request_after_the_answer_adds_to_the_record(client, opened):
    assignment, url = opened
    fetch(client, url)
    start_and_wait(client, assignment)
    MediaUse.objects.filter(assignment=assignment).update(served=[])
    fetch(client, url)  # the worker may still play it while changing the answer
    assert MediaUse.objects.get(assignment=assignment).served == []


def test_fetches_from_before_bytes_were_counted_are_not_checked_for_them(client, opened):
    # An assignment open while the platform was upgraded: its record says the bytes were not
    # counted (NULL), later requests do not start a partial count, and its answer is judged on
    # the other rules alone.
    assignment, url = opened
    assert fetch(client, url, 0, 0) == 206
    MediaUse.objects.filter(assignment=assignment).update(served=None)
    assert fetch(client, url, 0, 9) == 206
    assert MediaUse.objects.get(assignment=assignment).served is None
    start_and_wait(client, assignment)
    playback = Annotation.objects.get(assignment=assignment).client["metrics"]["playback"]
    assert playback["server"]["served"] is None
