"""What the server decides about a listen from its own records: the clip's length read at upload,
the hand-out time, the clip's fetches and starts of playback for the assignment. Forged reports
are refused, the refusals kept and exported, a reload shows the speech as started, and a
listener's item carries no transcript anywhere."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from annotation.exports import annotation_rows
from annotation.importers import ParsedItem
from annotation.media.refs import media_ref
from annotation.models import Annotation, Assignment, MediaFile, MediaUse, RefusedAnswer
from annotation.services import items_import
from annotation.services.media.files import media_import_file
from annotation.task_types import get_task_type
from annotation.task_types.playback import duration_tolerance
from task_types.comprehension.tests.factories import heard_on_server
from tests.factories import ProjectFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]
TASK = get_task_type("comprehension")
CLIP = Path(__file__).resolve().parents[3] / "task_types/comprehension/data/james_121_ban-boxing_con_opening_rachel.mp3"
LENGTH = 43.076  # read from the clip's frames; ffprobe says 43.1 s
SECRET = "Every punch to the head harms the brain of a boxer"


def project_of(mode="listening", **options):
    project = ProjectFactory(task_type="comprehension", redundancy=2, options=TASK.clean_options({"mode": mode, **options}))
    data = CLIP.read_bytes()
    media_import_file(project=project, data=io.BytesIO(data), name=CLIP.name, size=len(data), key="s1.mp3")
    record = {"id": "s1", "motion": "We should ban boxing",
              "speech": {"id": "s1", "speaker": "rachel", "stance": "pro", "audio": "s1.mp3",
                         "transcript": f"{SECRET}. Boxing glorifies violence.",
                         "asr_transcript": f"{SECRET.lower()} boxing glorifies violence"},
              "titles": [{"id": "t1", "title": "boxing damages the brain"}, {"id": "t2", "title": "boxing glorifies violence"}]}
    items_import(project=project, parsed=[ParsedItem(1, TASK.clean_item(record))])
    return project


def report(length=LENGTH, *, listened=None):
    """A consistent report of one whole listen of a ``length``-second clip, taking ``listened`` s."""
    took = round((listened if listened is not None else length) * 1000)
    return {"events": [{"type": "play", "t": 0, "at": 500}, {"type": "ended", "t": length, "at": 500 + took}],
            "heard": 1.0, "duration": length}


@pytest.fixture
def listener(client):
    worker = UserFactory()
    client.force_login(worker)
    return worker


def open_item(client, project):
    page = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    return page, Assignment.objects.get(project=project)


def submit(client, assignment, playback, **extra) -> str:
    """The page the server answers with, its text unescaped."""
    data = {"titles": ["t1"], "playback": json.dumps(playback), **extra}
    answer = client.post(f"/projects/{assignment.project.slug}/annotate/{assignment.pk}/submit/", data, HTTP_HX_REQUEST="true")
    return html.unescape(answer.content.decode())


def play(client, assignment, n=1):
    ref = media_ref(assignment_id=assignment.pk, key="s1.mp3")
    return client.post(f"/api/assignments/{assignment.pk}/plays/", {"key": ref, "play": n}, content_type="application/json")


def test_the_clip_s_length_is_read_when_it_is_stored():
    assert MediaFile.objects.get(project=project_of()).duration == pytest.approx(LENGTH, abs=0.001)


def test_a_report_for_a_clip_never_fetched_is_refused_and_the_refusal_kept(client, listener):
    project = project_of()
    _, assignment = open_item(client, project)
    heard_on_server(assignment, "s1.mp3", fetch=False)
    page = submit(client, assignment, report())
    assert "audio was never loaded for this item" in page
    assert not Annotation.objects.exists()
    refusal = RefusedAnswer.objects.get(assignment=assignment)
    assert "never loaded" in refusal.errors["playback"]


def test_a_full_listen_reported_half_a_second_after_the_hand_out_is_refused(client, listener):
    project = project_of()
    page, assignment = open_item(client, project)
    audio_url = page.split('data-audio src="')[1].split('"')[0]
    assert audio_url == f"/projects/{project.slug}/annotate/{assignment.pk}/media/{media_ref(assignment_id=assignment.pk, key='s1.mp3')}"
    whole = client.get(audio_url)
    assert whole.status_code == 200 and b"".join(whole.streaming_content) == CLIP.read_bytes()
    assert play(client, assignment).status_code == 200
    answer = submit(client, assignment, report(listened=LENGTH))
    # What passed is what the server saw between hand-out and answer: a fraction of a second on a
    # quiet machine, more on a loaded one; never the clip's length.
    passed = re.search(rf"claims {LENGTH:.1f} s of the speech heard, but only (\d+\.\d) s passed", answer)
    assert passed is not None and float(passed.group(1)) < LENGTH / 2
    assert not Annotation.objects.exists() and RefusedAnswer.objects.filter(assignment=assignment).count() == 1


def test_a_length_that_is_not_the_clip_s_is_refused(client, listener):
    _, assignment = open_item(client, project_of())
    heard_on_server(assignment, "s1.mp3")
    answer = submit(client, assignment, report(1.0))
    assert f"gives the speech's length as 1 s; the speech lasts {LENGTH:g} s" in answer
    assert not Annotation.objects.exists()


@pytest.mark.parametrize(("claimed", "taken"), [(LENGTH + 0.8, True), (LENGTH - 0.8, True), (LENGTH + 0.9, False)])
def test_codec_rounding_of_the_length_is_tolerated(client, listener, claimed, taken):
    assert duration_tolerance(LENGTH) == pytest.approx(0.86152) and duration_tolerance(3.0) == 0.5
    _, assignment = open_item(client, project_of())
    heard_on_server(assignment, "s1.mp3")
    submit(client, assignment, report(claimed))
    assert Annotation.objects.exists() is taken


def test_a_clip_fetched_but_never_started_is_refused(client, listener):
    _, assignment = open_item(client, project_of())
    heard_on_server(assignment, "s1.mp3", play=False)
    assert "no record that the speech was played" in submit(client, assignment, report())


def test_more_starts_than_the_project_allows_are_refused(client, listener):
    _, assignment = open_item(client, project_of(allow_replay=True, max_plays=2))
    heard_on_server(assignment, "s1.mp3")
    for n in (2, 3):
        assert play(client, assignment, n).status_code == 200
    answer = submit(client, assignment, report())
    assert "started 3 times for this item; this project allows 2 plays" in answer


def test_an_accepted_listen_keeps_its_refusals_and_exports_every_event_with_its_wall_clock_time(client, listener):
    project = project_of()
    _, assignment = open_item(client, project)
    heard_on_server(assignment, "s1.mp3", fetch=False)
    submit(client, assignment, report())  # refused: never fetched
    heard_on_server(assignment, "s1.mp3")
    submit(client, assignment, report())
    annotation = Annotation.objects.get()
    assignment.refresh_from_db()
    stored = annotation.client["metrics"]["playback"]
    assert [e["wall"] for e in stored["events"]] == [
        (assignment.assigned_at + timedelta(milliseconds=e["at"])).isoformat() for e in stored["events"]]
    assert stored["server"]["plays"] == 1 and stored["server"]["clip_duration"] == pytest.approx(LENGTH, abs=0.001)
    assert [list(r["errors"]) for r in annotation.client["refused"]] == [["playback"]]
    row = next(annotation_rows(project=project))
    timeline = json.loads(row["playback_timeline"])
    assert [(e["type"], e["at"]) for e in timeline] == [("play", 500), ("ended", 500 + round(LENGTH * 1000))]
    assert timeline[0]["wall"] == stored["events"][0]["wall"]
    assert "never loaded" in json.loads(row["refused_attempts"])[0]["errors"]["playback"]
    assert row["playback_started_at"] and row["audio_fetched_at"] and row["report_received_at"]
    csv_export = client.get(f"/api/projects/{project.slug}/annotations/?fmt=csv")
    assert csv_export.status_code in (401, 403)  # a worker exports nothing


def test_starts_are_recorded_once_per_number_and_only_for_the_worker_s_open_item(client, listener):
    project = project_of()
    _, assignment = open_item(client, project)
    first = play(client, assignment).json()
    again = play(client, assignment).json()
    assert first["media"][0]["plays"] == again["media"][0]["plays"] == 1
    assert first["media"][0]["first_played_at"] == again["media"][0]["first_played_at"]
    assert first["media"][0]["fetched"] is False
    # A play names the file by its reference: the key, or anything else, is not found.
    for other in ("s1.mp3", "other.mp3"):
        assert client.post(f"/api/assignments/{assignment.pk}/plays/", {"key": other, "play": 1},
                           content_type="application/json").status_code == 404
    client.force_login(UserFactory())
    assert play(client, assignment).status_code == 404  # another's assignment: as if none
    # Another worker of the project fetches nothing in the first one's name, nor by key.
    ref = media_ref(assignment_id=assignment.pk, key="s1.mp3")
    assert client.get(f"/projects/{project.slug}/annotate/{assignment.pk}/media/{ref}").status_code == 404
    assert client.get(f"/projects/{project.slug}/media/s1.mp3").status_code == 404
    assert MediaUse.objects.get().fetches == 0


def test_a_reload_shows_the_speech_as_started_not_a_fresh_player(client, listener):
    project = project_of()
    page, assignment = open_item(client, project)
    assert 'data-plays="0"' in page and "The speech plays once." in page
    play(client, assignment)
    reloaded, _ = open_item(client, project)
    assert 'data-plays="1"' in reloaded
    assert "You already started this speech for this item. It plays once, so it cannot be played again." in reloaded


def test_a_refused_submit_shows_the_speech_as_started(client, listener):
    project = project_of(allow_replay=True, max_plays=3)
    _, assignment = open_item(client, project)
    heard_on_server(assignment, "s1.mp3")
    refused = submit(client, assignment, report(1.0))
    assert 'data-plays="1"' in refused and "You already started this speech for this item (1 play of 3)." in refused


def test_a_listener_never_receives_the_transcript(client, listener):
    project = project_of()
    page, assignment = open_item(client, project)
    heard_on_server(assignment, "s1.mp3", fetch=False)
    refused = submit(client, assignment, report())
    api_next = client.post(f"/api/projects/{project.slug}/assignments/next/").content.decode()
    api_refused = client.post(f"/api/assignments/{assignment.pk}/submit/", {"titles": ["t9"], "playback": report()},
                              content_type="application/json").content.decode()
    for text in (page, refused, api_next, api_refused):
        assert SECRET not in text and SECRET.lower() not in text and "sentences" not in text
    assert json.loads(api_next)["assignment"]["item"]["payload"]["speech"]["audio"] == media_ref(
        assignment_id=assignment.pk, key="s1.mp3")
    assert "s1.mp3" not in page and "s1.mp3" not in api_next
    # A reader of the same item gets it.
    reader_project = project_of("reading")
    client.force_login(UserFactory())
    reader_page = client.get(f"/projects/{reader_project.slug}/annotate/").content.decode()
    assert SECRET in reader_page and "s1.mp3" not in reader_page


def test_reading_keeps_the_titles_beside_the_transcript_and_shows_no_play_key(client, listener):
    reading = client.get(f"/projects/{project_of('reading').slug}/annotate/").content.decode()
    assert 'class="reading-split"' in reading and "comprehension/comprehension.css" in reading
    assert "<kbd>p</kbd>" not in reading and "play (and pause" not in reading
    client.force_login(UserFactory())
    listening = client.get(f"/projects/{project_of().slug}/annotate/").content.decode()
    assert "<kbd>p</kbd>" in listening and 'class="reading-split"' not in listening


def test_the_migration_reads_the_length_of_files_stored_before():
    from importlib import import_module

    from django.apps import apps

    project = project_of()
    MediaFile.objects.filter(project=project).update(duration=None)
    import_module("annotation.migrations.0009_media_duration_uses_refusals").read_durations(apps, None)
    assert MediaFile.objects.get(project=project).duration == pytest.approx(LENGTH, abs=0.001)


def test_the_export_keeps_csv_safe_json_columns(client, listener):
    project = project_of()
    _, assignment = open_item(client, project)
    heard_on_server(assignment, "s1.mp3")
    submit(client, assignment, report())
    staff = UserFactory(is_superuser=True, is_staff=True)
    client.force_login(staff)
    text = b"".join(client.get(f"/api/projects/{project.slug}/annotations/?fmt=csv").streaming_content).decode()
    row = next(csv.DictReader(io.StringIO(text)))
    assert json.loads(row["playback_timeline"])[1]["type"] == "ended" and row["refused_attempts"] == ""
    assert timezone.datetime.fromisoformat(json.loads(row["playback_timeline"])[0]["wall"])


def test_an_api_client_fetches_the_clip_through_its_assignment(client, listener):
    project = project_of()
    _, assignment = open_item(client, project)
    ref = client.post(f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]["item"]["payload"]["speech"]["audio"]
    url = f"/api/assignments/{assignment.pk}/media/{ref}"
    part = client.get(url, HTTP_RANGE="bytes=0-99", HTTP_ACCEPT="audio/mpeg")
    assert part.status_code == 206 and part["Content-Type"] == "audio/mpeg"
    assert part["Content-Disposition"] == f'inline; filename="{ref}.mp3"'
    assert b"".join(part.streaming_content) == CLIP.read_bytes()[:100]
    use = MediaUse.objects.get(assignment=assignment)
    assert use.fetches == 1 and use.served == [[0, 100]]
    assert client.get(f"/api/assignments/{assignment.pk}/media/s1.mp3").status_code == 404
    assert client.get(f"/api/assignments/{assignment.pk}/media/other.mp3").status_code == 404
    client.force_login(UserFactory())
    assert client.get(url).status_code == 404  # another's assignment: as if none
