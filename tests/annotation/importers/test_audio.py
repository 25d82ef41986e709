"""Audio is told by its first bytes, never by its name."""

import pytest

from annotation.audio import SNIFF_BYTES, describe, sniff_audio
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


def test_a_header_cut_short_is_not_audio():
    assert sniff_audio(audio.mp3_frames()[:3]) is None
    assert sniff_audio(b"ID3\x04") is None
    assert sniff_audio(b"RIFF\x00\x00") is None
