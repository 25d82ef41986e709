"""Audio files under their keys go to staff, with byte ranges; everyone else, the project's
annotators too (they fetch by reference through their assignment: tests/annotation/views/
media/test_assignment_media.py), gets the page of a project that does not exist."""

import io
import re

import pytest
from django.db import DatabaseError
from django.urls import reverse

from annotation.media.byte_ranges import MAX_SERVED_RANGES, ranges_length, ranges_union
from annotation.services import media_import_file
from annotation.views.media.serving import (
    CHUNK,
    REPORT_EVERY,
    ByteRange,
    FileSlice,
    RangeNotSatisfiable,
    media_url,
    requested_range,
)
from tests.factories import ProjectFactory, UserFactory
from tests.support import audio

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]
CLIP = audio.wav(frames=500)
SIZE = len(CLIP)


@pytest.fixture
def project():
    project = ProjectFactory(open_to_all=False)
    media_import_file(project=project, data=io.BytesIO(CLIP), name="speech_81_pro.wav", size=SIZE)
    return project


@pytest.fixture
def member(project):
    """Who may fetch a file by its key: staff (a researcher)."""
    return UserFactory(role="researcher")


@pytest.fixture
def url(project):
    return media_url(project, "speech_81_pro.wav")


def page(response) -> str:
    """A page without its CSRF tokens, which are masked anew on every render."""
    return re.sub(r"[A-Za-z0-9]{64}", "", response.content.decode())


def body(response) -> bytes:
    """The whole body; reading a streamed one to its end closes the stored file behind it."""
    return b"".join(response.streaming_content) if response.streaming else response.content


def fetch(client, url, **headers):
    response = client.get(url, headers=headers)
    response.body = body(response)
    return response


def test_staff_get_the_file_with_its_type_and_safe_headers(client, member, url):
    client.force_login(member)
    response = client.get(url)
    assert response.status_code == 200
    assert body(response) == CLIP
    assert response["Content-Type"] == "audio/wav"
    assert response["Content-Length"] == str(SIZE)
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Accept-Ranges"] == "bytes"
    assert response["Cache-Control"] == "private, max-age=3600"
    assert response["Content-Disposition"] == 'inline; filename="speech_81_pro.wav"'


def test_staff_who_also_annotate_the_project_get_the_file_too(client, project, url):
    admin = UserFactory(role="admin")
    project.members.add(admin)
    client.force_login(admin)
    response = client.get(url)
    assert response.status_code == 200 and body(response) == CLIP


@pytest.mark.parametrize("who", ["anonymous", "non-member", "member elsewhere", "annotator of the project"])
def test_anyone_else_gets_the_missing_project_page(client, project, url, who):
    if who == "non-member":
        client.force_login(UserFactory())
    elif who == "annotator of the project":
        # A key may give an answer away: an annotator may not even learn that it exists.
        annotator = UserFactory()
        project.members.add(annotator)
        client.force_login(annotator)
    elif who == "member elsewhere":
        other = ProjectFactory(open_to_all=False)
        user = UserFactory()
        other.members.add(user)
        client.force_login(user)
    response = client.get(url)
    missing = client.get(reverse("media", kwargs={"slug": "no-such-project", "key": "speech_81_pro.wav"}))
    # A 404, not a redirect to the login form, and the same page as for a project that is not there.
    assert response.status_code == 404 and missing.status_code == 404
    assert page(response) == page(missing)
    assert b"RIFF" not in response.content


def test_an_unknown_key_and_another_project_s_key_are_404(client, member, project):
    client.force_login(member)
    assert client.get(media_url(project, "nope.wav")).status_code == 404
    other = ProjectFactory(open_to_all=True)
    assert client.get(media_url(other, "speech_81_pro.wav")).status_code == 404


@pytest.mark.parametrize(("header", "start", "end"), [
    ("bytes=0-99", 0, 99),
    ("bytes=100-", 100, SIZE - 1),
    ("bytes=-4", SIZE - 4, SIZE - 1),
    (f"bytes=10-{SIZE + 500}", 10, SIZE - 1),
    (f"bytes=-{SIZE + 10}", 0, SIZE - 1),
    ("bytes=44-44", 44, 44),
])
def test_a_range_gets_206_with_those_bytes(client, member, url, header, start, end):
    client.force_login(member)
    response = client.get(url, headers={"Range": header})
    assert response.status_code == 206
    assert body(response) == CLIP[start:end + 1]
    assert response["Content-Range"] == f"bytes {start}-{end}/{SIZE}"
    assert response["Content-Length"] == str(end - start + 1)
    assert response["Content-Type"] == "audio/wav"


@pytest.mark.parametrize("header", [f"bytes={SIZE}-", f"bytes={SIZE + 5}-{SIZE + 10}", "bytes=-0"])
def test_a_range_past_the_end_is_416(client, member, url, header):
    client.force_login(member)
    response = client.get(url, headers={"Range": header})
    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{SIZE}"
    assert b"RIFF" not in response.content


@pytest.mark.parametrize("header", ["bytes=0-1,4-5", "bytes=9-3", "items=0-1", "bytes=x-y", "bytes=-", "bytes=" + "9" * 30 + "-"])
def test_several_or_malformed_ranges_get_the_whole_file(client, member, url, header):
    client.force_login(member)
    response = client.get(url, headers={"Range": header})
    assert response.status_code == 200 and body(response) == CLIP


def test_if_range_serves_the_range_only_for_this_version(client, member, url):
    client.force_login(member)
    etag = fetch(client, url)["ETag"]
    assert fetch(client, url, Range="bytes=0-3", **{"If-Range": etag}).status_code == 206
    stale = fetch(client, url, Range="bytes=0-3", **{"If-Range": '"an-older-version"'})
    assert stale.status_code == 200 and stale.body == CLIP
    assert fetch(client, url, **{"If-None-Match": etag}).status_code == 304


def test_head_gives_the_headers_without_the_body(client, member, url):
    client.force_login(member)
    response = client.head(url)
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Length"] == str(SIZE)
    assert response["Content-Type"] == "audio/wav" and response["Accept-Ranges"] == "bytes"
    assert client.post(url).status_code == 405


def test_the_file_is_streamed_in_chunks_not_read_whole(client, member, project, settings):
    settings.MEDIA_MAX_FILE_MB = 2
    long_clip = audio.wav(frames=300_000)  # 600 KB
    media_import_file(project=project, data=io.BytesIO(long_clip), name="long.wav", size=len(long_clip))
    client.force_login(member)
    response = client.get(media_url(project, "long.wav"), headers={"Range": "bytes=1000-"})
    assert response.streaming
    chunks = list(response.streaming_content)
    assert b"".join(chunks) == long_clip[1000:]
    assert len(chunks) > 5 and max(len(c) for c in chunks) <= CHUNK


def test_a_file_lost_by_the_storage_is_a_404(client, member, project, url, media_root):
    for path in media_root.rglob("*.wav"):
        path.unlink()
    client.force_login(member)
    assert client.get(url).status_code == 404


def test_urls_quote_what_a_key_may_hold(project):
    assert media_url(project, "speech 81.mp3") == f"/projects/{project.slug}/media/speech%2081.mp3"
    assert media_url(project, "pro/81?#.mp3") == f"/projects/{project.slug}/media/pro/81%3F%23.mp3"


def test_a_key_with_a_folder_and_spaces_is_served(client, member, project):
    media_import_file(project=project, data=io.BytesIO(audio.mp3_frames()), name="x.mp3", size=1251, key="pro side/81 ü.mp3")
    client.force_login(member)
    response = client.get(media_url(project, "pro side/81 ü.mp3"))
    assert response.status_code == 200 and body(response) == audio.mp3_frames()
    assert response["Content-Type"] == "audio/mpeg"


def test_range_parsing_on_its_own():
    assert requested_range("bytes=0-0", 10) == ByteRange(0, 0)
    assert requested_range(" bytes = 2-5 ", 10) == ByteRange(2, 5)
    assert requested_range("", 10) is None
    with pytest.raises(RangeNotSatisfiable):
        requested_range("bytes=10-", 10)


def test_a_stream_reports_the_bytes_sent_as_it_goes_and_when_it_closes():
    data = bytes(range(256)) * (3 * REPORT_EVERY // 256 + 100)  # three reports' worth and a bit
    sent: list[tuple[int, int]] = []
    stream = FileSlice(io.BytesIO(data), 10, len(data) - 10, lambda start, end: sent.append((start, end)))
    assert b"".join(stream) == data[10:]
    assert sent == [(10, 10 + REPORT_EVERY), (10, 10 + 2 * REPORT_EVERY), (10, 10 + 3 * REPORT_EVERY)]
    stream.close()
    assert sent[-1] == (10, len(data)) and len(sent) == 4


def test_a_client_that_hangs_up_is_credited_with_what_it_read():
    data = bytes(5 * CHUNK)
    sent: list[tuple[int, int]] = []
    stream = FileSlice(io.BytesIO(data), 0, len(data), lambda start, end: sent.append((start, end)))
    chunks = iter(stream)
    next(chunks), next(chunks)  # two chunks handed to the server, the second not yet written out
    stream.close()
    assert sent == [(0, CHUNK)]


def test_a_record_that_fails_does_not_stop_the_file(caplog):
    def broken(start, end):
        raise DatabaseError("the database is away")

    stream = FileSlice(io.BytesIO(CLIP), 0, SIZE, broken)
    assert b"".join(stream) == CLIP
    stream.close()
    assert "could not record" in caplog.text


def test_byte_ranges_add_up_as_sets():
    assert ranges_union([], 0, 10) == [[0, 10]]
    assert ranges_union([[0, 10]], 10, 20) == [[0, 20]]  # touching ranges merge
    assert ranges_union([[0, 10], [30, 40]], 5, 35) == [[0, 40]]
    assert ranges_union([[0, 10]], 20, 30) == [[0, 10], [20, 30]]
    assert ranges_union([[0, 10]], 3, 3) == [[0, 10]]
    assert ranges_length([[0, 10], [20, 30]]) == 20
    many = [[i * 10, i * 10 + 1] for i in range(MAX_SERVED_RANGES)]
    kept = ranges_union(many, 100_000, 100_500)
    assert len(kept) == MAX_SERVED_RANGES and kept[-1] == [100_000, 100_500]
