"""A listening project plays each response under the contract's playback rules: a forged report
(no start of playback on the server, a listen faster than the clip) is refused by the server."""

from __future__ import annotations

import html
import json

import pytest

from annotation.models import Annotation, Assignment
from task_types.response_scoring.tests.factories import LENGTH, heard_on_server, project_of
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


def report(listened=LENGTH):
    return {"events": [{"type": "play", "t": 0, "at": 500}, {"type": "ended", "t": LENGTH, "at": 500 + round(listened * 1000)}],
            "heard": 1.0, "duration": LENGTH}


def open_item(client, project):
    client.force_login(UserFactory())
    page = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    return page, Assignment.objects.get(project=project)


def submit(client, assignment, playback) -> str:
    data = {"score": "3", "playback": json.dumps(playback)}
    answer = client.post(f"/projects/{assignment.project.slug}/annotate/{assignment.pk}/submit/", data, HTTP_HX_REQUEST="true")
    return html.unescape(answer.content.decode())


def test_the_listener_gets_the_player_and_no_transcript(client):
    page, _ = open_item(client, project_of("listening", audio=True))
    assert "data-player" in page and "js/listening.js" in page and "Bees carry pollen" not in page


def test_a_forged_report_is_refused_and_an_honest_one_taken(client):
    project = project_of("listening", audio=True)
    _, assignment = open_item(client, project)
    heard_on_server(assignment, "r1.mp3", play=False)
    assert "no record that the speech was played" in submit(client, assignment, report())
    assert not Annotation.objects.exists()
    heard_on_server(assignment, "r1.mp3", started_ago=60)
    submit(client, assignment, report())
    annotation = Annotation.objects.get()
    assert annotation.answer["score"] == "3" and annotation.client["metrics"]["playback"]["server"]["plays"] == 1


def test_a_listen_faster_than_the_clip_is_refused(client):
    _, assignment = open_item(client, project_of("listening", audio=True))
    heard_on_server(assignment, "r1.mp3", started_ago=5)
    assert f"claims {LENGTH:.1f} s of the speech heard, but only" in submit(client, assignment, report())
    assert not Annotation.objects.exists()


def test_a_response_fetched_a_byte_at_a_time_is_not_heard(client):
    project = project_of("listening", audio=True)
    page, assignment = open_item(client, project)
    url = page.split('data-audio src="')[1].split('"')[0]
    assert "r1.mp3" not in page and url.startswith(f"/projects/{project.slug}/annotate/{assignment.pk}/media/")
    b"".join(client.get(url, headers={"Range": "bytes=0-0"}).streaming_content)
    heard_on_server(assignment, "r1.mp3", fetch=False)
    assert "Only 0% of the audio was sent for this item" in submit(client, assignment, report())
    b"".join(client.get(url).streaming_content)
    submit(client, assignment, report())
    assert Annotation.objects.get().client["metrics"]["playback"]["server"]["served"] == 1.0
