"""Audio is told by its first bytes, never by its name (what is refused, and how it is described:
tests/security/test_import_disguised_audio.py)."""

import pytest

from annotation.media.formats import SNIFF_BYTES, sniff_audio
from tests.support import audio


@pytest.mark.parametrize(("data", "content_type"), [
    (audio.wav(), "audio/wav"),
    (audio.mp3_frames(), "audio/mpeg"),
    (audio.mp3_with_id3(), "audio/mpeg"),
    (audio.ogg_opus(), "audio/ogg"),
    (audio.ogg_vorbis(), "audio/ogg"),
    (audio.ogg_page(b"\x7fFLAC\x01\x00" + bytes(40)), "audio/ogg"),
    (audio.flac(), "audio/flac"),
    (audio.m4a(), "audio/mp4"),
    (audio.webm(), "audio/webm"),
])
def test_each_format_is_recognised_from_its_header(data, content_type):
    assert sniff_audio(data[:SNIFF_BYTES]) == content_type


def test_mpeg_frames_of_every_version_and_layer_count():
    # MPEG-2 Layer III at 64 kbit/s, 22.05 kHz; MPEG-1 Layer II at 192 kbit/s, 48 kHz.
    assert sniff_audio(bytes([0xFF, 0xF3, 0x80, 0xC4]) + bytes(200)) == "audio/mpeg"
    assert sniff_audio(bytes([0xFF, 0xFD, 0xA4, 0x00]) + bytes(200)) == "audio/mpeg"


def test_a_header_cut_short_is_not_audio():
    assert sniff_audio(audio.mp3_frames()[:3]) is None
    assert sniff_audio(b"ID3\x04") is None
    assert sniff_audio(b"RIFF\x00\x00") is None
