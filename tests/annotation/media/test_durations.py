"""How long a file plays, from its headers: each format against a length known by construction,
and the shipped MP3 clips against ffprobe's figures (task_types/comprehension/data/README.md)."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest

from annotation.media.durations import audio_duration
from annotation.media.formats import FLAC, MP4, MPEG, OGG, WAV, WEBM, sniff_audio
from tests.support import audio

CLIPS = Path(__file__).resolve().parents[3] / "task_types" / "comprehension" / "data"


def seconds(data: bytes, content_type: str) -> float | None:
    return audio_duration(io.BytesIO(data), content_type, len(data))


def test_wav_from_its_data_size_and_byte_rate():
    assert seconds(audio.wav(8000 * 3 + 4000), WAV) == pytest.approx(3.5)
    # A writer that streamed the file left the data size unset: the data runs to the end.
    streamed = bytearray(audio.wav(8000))
    at = streamed.index(b"data") + 4
    streamed[at:at + 4] = b"\xff\xff\xff\xff"
    assert seconds(bytes(streamed), WAV) == pytest.approx(1.0)


@pytest.mark.parametrize(("name", "ffprobe"), [
    ("daniel_1661_school-uniforms_pro_opening.mp3", 42.2), ("will_1661_school-uniforms_con_opening_james.mp3", 43.8),
    ("rachel_121_ban-boxing_pro_opening.mp3", 42.1), ("james_121_ban-boxing_con_opening_rachel.mp3", 43.1),
])
def test_the_shipped_mp3_clips_match_ffprobe(name, ffprobe):
    data = (CLIPS / name).read_bytes()
    assert sniff_audio(data[:512]) == MPEG
    assert seconds(data, MPEG) == pytest.approx(ffprobe, abs=0.06)


def test_mp3_without_a_vbr_header_walks_its_frames():
    # 1152 samples a frame at 44.1 kHz, behind an ID3 tag or not.
    assert seconds(audio.mp3_frames(100), MPEG) == pytest.approx(100 * 1152 / 44100, abs=1e-3)
    assert seconds(audio.mp3_with_id3(), MPEG) == pytest.approx(2 * 1152 / 44100, abs=1e-3)


def test_mp3_with_a_xing_header_reads_its_frame_count():
    frame = bytearray(audio.mp3_frames(1))
    frame[4 + 32:4 + 32 + 12] = b"Xing" + struct.pack(">II", 1, 3828)  # frames flag, 3828 frames
    assert seconds(bytes(frame) + audio.mp3_frames(3), MPEG) == pytest.approx(3828 * 1152 / 44100, abs=1e-3)


def test_flac_from_streaminfo():
    info = bytearray(34)
    # 20 bits of rate (44100), 3 of channels, 5 of bits per sample, 36 of samples (441000).
    info[10:18] = ((44100 << 44) | (1 << 41) | (15 << 36) | 441000).to_bytes(8, "big")
    assert seconds(b"fLaC" + bytes([0x80, 0, 0, 34]) + bytes(info), FLAC) == pytest.approx(10.0)
    assert seconds(audio.flac(), FLAC) is None  # no sample count: unknown, not zero


def last_page(granule: int) -> bytes:
    return b"OggS" + bytes([0, 0x04]) + struct.pack("<q", granule) + bytes(13) + bytes(20)


def test_ogg_from_the_last_granule_position():
    # Opus counts at 48 kHz after a pre-skip of 312 samples; Vorbis at its own rate.
    assert seconds(audio.ogg_opus() + last_page(48000 * 7 + 312), OGG) == pytest.approx(7.0)
    assert seconds(audio.ogg_vorbis() + last_page(44100 * 5), OGG) == pytest.approx(5.0)
    assert seconds(audio.ogg_vorbis(), OGG) is None


def box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


def test_mp4_from_mvhd_behind_the_media_data():
    mvhd = box(b"mvhd", bytes(4) + bytes(8) + struct.pack(">II", 1000, 12_500) + bytes(80))
    data = box(b"ftyp", b"M4A " + bytes(4) + b"isom") + box(b"mdat", bytes(5000)) + box(b"moov", mvhd)
    assert seconds(data, MP4) == pytest.approx(12.5)


def test_webm_from_the_segment_info():
    info_body = b"\x2a\xd7\xb1\x83\x0f\x42\x40" + b"\x44\x89\x84" + struct.pack(">f", 2500.0)  # 1 ms ticks
    info = b"\x15\x49\xa9\x66" + bytes([0x80 | len(info_body)]) + info_body
    segment = b"\x18\x53\x80\x67" + b"\x01\xff\xff\xff\xff\xff\xff\xff" + info
    data = b"\x1a\x45\xdf\xa3\x80" + segment
    assert seconds(data, WEBM) == pytest.approx(2.5)


@pytest.mark.parametrize("content_type", [WAV, MPEG, FLAC, OGG, MP4, WEBM, "audio/unknown"])
def test_headers_that_do_not_tell_give_none(content_type):
    assert seconds(b"RIFF" + bytes(40), content_type) is None
    assert seconds(b"", content_type) is None
