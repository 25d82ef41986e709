"""Disguised audio: files that are not audio whatever their names say (an HTML page named .mp3, a
PNG named .wav, text, video, a zip) are told by their first bytes, described, and refused in an
import with a message naming each file; nothing is stored."""

import io

import pytest

from annotation.importers import ImportFailed
from annotation.media.formats import SNIFF_BYTES, describe, sniff_audio
from annotation.models import MediaFile
from annotation.services import media_import_zip
from tests.factories import ProjectFactory
from tests.support import audio
from tests.support.audio import stored_files, zip_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return ProjectFactory()


@pytest.mark.parametrize(("data", "why"), [
    (audio.HTML, "it looks like an HTML page"),
    (b"\n  <html><head></head></html>", "it looks like an HTML page"),
    (audio.PNG, "it looks like a PNG image"),
    (b"", "it is empty"),
    (b"speech 81, pro side\n", "it looks like text"),
    (audio.ogg_theora(), "it looks like an Ogg stream without audio"),
    (audio.zip_of({"a.mp3": audio.mp3_frames()}), "it looks like a zip archive"),
    # An ADTS AAC frame: the MPEG sync word, but layer 00.
    (bytes([0xFF, 0xF1, 0x50, 0x80]) + bytes(200), "its first bytes match no known audio format"),
    # MPEG sync with the "bad" bitrate index 1111, and one with the reserved sampling rate 11.
    (bytes([0xFF, 0xFB, 0xF0, 0x00]) + bytes(200), "its first bytes match no known audio format"),
    (bytes([0xFF, 0xFB, 0x9C, 0x00]) + bytes(200), "its first bytes match no known audio format"),
    # RIFF of another kind (an AVI video), an MP4 of a brand that is not audio.
    (b"RIFF\x00\x01\x00\x00AVI LIST" + bytes(200), "its first bytes match no known audio format"),
    (b"\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00qt  " + bytes(100), "its first bytes match no known audio format"),
])
def test_anything_else_is_refused_and_described(data, why):
    assert sniff_audio(data[:SNIFF_BYTES]) is None
    assert describe(data[:SNIFF_BYTES]) == why


def test_html_named_mp3_is_refused_naming_the_file_and_nothing_is_stored(project, media_root):
    data = zip_of({"a.mp3": audio.mp3_frames(), "b.mp3": audio.HTML, "c.wav": audio.PNG, "d.ogg": b""})
    with pytest.raises(ImportFailed) as exc:
        media_import_zip(project=project, archive=io.BytesIO(data), name="clips.zip")
    formats = "MP3, WAV, Ogg (Opus, Vorbis, FLAC), FLAC, MP4/M4A or WebM"
    assert [str(e) for e in exc.value.errors] == [
        f"file: 'b.mp3' is not an audio file ({formats}): it looks like an HTML page",
        f"file: 'c.wav' is not an audio file ({formats}): it looks like a PNG image",
        f"file: 'd.ogg' is not an audio file ({formats}): it is empty",
    ]
    assert not MediaFile.objects.exists() and stored_files(media_root) == []
