"""How long an audio file plays, read from its headers (no decoding, no outside library).

The server checks what a client says it heard against the length of the clip, so the length is
read once when the file is stored: WAV from its data size and byte rate, MP3 from its Xing/Info or
VBRI header or else by walking its frames, FLAC from STREAMINFO, Ogg (Vorbis, Opus, FLAC, Speex)
from the last page's granule position, MP4 from ``mvhd``, WebM from the segment's Info. A file
this cannot read gets None, never a guess. Pure: no Django.
"""

from __future__ import annotations

import struct
from typing import IO

from annotation.media.formats import FLAC, MP4, MPEG, OGG, WAV, WEBM

# The MP3 bitrates in kbit/s by [MPEG-1?][layer][index]; sampling rates by [version][index].
_BITRATES = {
    (True, 1): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (True, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (True, 3): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (False, 1): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (False, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    (False, 3): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}
# Frames walked at most in a file without a Xing or VBRI header (about 5 hours at 44.1 kHz).
MAX_FRAMES = 500_000
OGG_TAIL = 65_536


def audio_duration(stream: IO[bytes], content_type: str, size: int) -> float | None:
    """Seconds that the file in ``stream`` (seekable, ``size`` bytes, of a content type that
    ``annotation.media.formats.sniff_audio`` gave) plays, or None when its headers do not tell."""
    reader = {WAV: _wav, MPEG: _mp3, FLAC: _flac, OGG: _ogg, MP4: _mp4, WEBM: _webm}.get(content_type)
    if reader is None:
        return None
    try:
        stream.seek(0)
        seconds = reader(stream, size)
    except (struct.error, ValueError, IndexError, OverflowError, ZeroDivisionError):
        return None
    return round(seconds, 3) if seconds is not None and 0 < seconds < 1e7 else None


def _read_at(stream: IO[bytes], offset: int, n: int) -> bytes:
    stream.seek(offset)
    return stream.read(n)


def _wav(stream: IO[bytes], size: int) -> float | None:
    stream.seek(12)
    byte_rate = 0
    while True:
        head = stream.read(8)
        if len(head) < 8:
            return None
        chunk, length = head[:4], struct.unpack("<I", head[4:])[0]
        if chunk == b"fmt ":
            body = stream.read(length)
            byte_rate = struct.unpack("<I", body[8:12])[0]
        elif chunk == b"data":
            start = stream.tell()
            # A writer that streamed the file may leave the size unset: the data runs to the end.
            data = size - start if length in (0, 0xFFFFFFFF) or start + length > size else length
            return data / byte_rate if byte_rate else None
        else:
            stream.seek(length + (length & 1), 1)


def _mp3(stream: IO[bytes], size: int) -> float | None:
    offset = 0
    head = _read_at(stream, 0, 10)
    if head[:3] == b"ID3" and len(head) == 10:
        tag = (head[6] << 21) | (head[7] << 14) | (head[8] << 7) | head[9]
        offset = 10 + tag + (10 if head[5] & 0x10 else 0)
    first = _frame_at(stream, offset)
    if first is None:
        return None
    mpeg1, channels_mono, rate, samples = first[1], first[2], first[3], first[4]
    frame = _read_at(stream, offset, 200)
    side = (17 if channels_mono else 32) if mpeg1 else (9 if channels_mono else 17)
    for tag_at in (4 + side, 36):
        if frame[tag_at:tag_at + 4] in (b"Xing", b"Info") and frame[tag_at + 7] & 1:
            return struct.unpack(">I", frame[tag_at + 8:tag_at + 12])[0] * samples / rate
        if frame[tag_at:tag_at + 4] == b"VBRI":
            return struct.unpack(">I", frame[tag_at + 14:tag_at + 18])[0] * samples / rate
    frames, position = 0, offset
    while frames < MAX_FRAMES and position < size:
        found = _frame_at(stream, position)
        if found is None:
            break
        frames += 1
        position += found[0]
    return frames * samples / rate if frames else None


def _frame_at(stream: IO[bytes], offset: int) -> tuple[int, bool, bool, int, int] | None:
    """(length, MPEG-1?, mono?, sampling rate, samples) of the MPEG audio frame at ``offset``."""
    h = _read_at(stream, offset, 4)
    if len(h) < 4 or h[0] != 0xFF or h[1] & 0xE0 != 0xE0:
        return None
    version, layer_bits = (h[1] >> 3) & 3, (h[1] >> 1) & 3
    bitrate_index, rate_index, padding = h[2] >> 4, (h[2] >> 2) & 3, (h[2] >> 1) & 1
    if version == 1 or layer_bits == 0 or bitrate_index in (0, 15) or rate_index == 3:
        return None
    layer, mpeg1 = 4 - layer_bits, version == 3
    bitrate = _BITRATES[(mpeg1, layer)][bitrate_index] * 1000
    rate = _RATES[version][rate_index]
    if layer == 1:
        length, samples = (12 * bitrate // rate + padding) * 4, 384
    elif layer == 2 or mpeg1:
        length, samples = 144 * bitrate // rate + padding, 1152
    else:
        length, samples = 72 * bitrate // rate + padding, 576
    return length, mpeg1, (h[3] >> 6) == 3, rate, samples


def _streaminfo(body: bytes) -> float | None:
    """Seconds of a FLAC STREAMINFO block (None when the encoder left the sample count out)."""
    bits = int.from_bytes(body[10:18], "big")
    rate, total = bits >> 44, bits & ((1 << 36) - 1)
    return total / rate if rate and total else None


def _flac(stream: IO[bytes], size: int) -> float | None:
    head = _read_at(stream, 4, 4 + 34)
    return _streaminfo(head[4:]) if head[0] & 0x7F == 0 else None


def _ogg(stream: IO[bytes], size: int) -> float | None:
    page = _read_at(stream, 0, 27 + 255 + 64)
    packet = page[27 + page[26]:]
    skip = 0
    if packet.startswith(b"\x01vorbis"):
        rate = struct.unpack("<I", packet[12:16])[0]
    elif packet.startswith(b"OpusHead"):
        rate, skip = 48000, struct.unpack("<H", packet[10:12])[0]
    elif packet.startswith(b"\x7fFLAC"):
        rate = int.from_bytes(packet[27:30], "big") >> 4  # STREAMINFO after the 13-byte mapping header
    elif packet.startswith(b"Speex   "):
        rate = struct.unpack("<I", packet[36:40])[0]
    else:
        return None
    tail_at = max(0, size - OGG_TAIL)
    tail = _read_at(stream, tail_at, OGG_TAIL)
    at = tail.rfind(b"OggS")
    while at >= 0:
        granule = struct.unpack("<q", tail[at + 6:at + 14])[0] if at + 14 <= len(tail) else -1
        if granule > 0:
            return (granule - skip) / rate if rate else None
        at = tail.rfind(b"OggS", 0, at)
    return None


def _mp4(stream: IO[bytes], size: int) -> float | None:
    def boxes(start: int, end: int):
        position = start
        while position + 8 <= end:
            head = _read_at(stream, position, 16)
            length, kind = struct.unpack(">I", head[:4])[0], head[4:8]
            header = 8
            if length == 1:
                length, header = struct.unpack(">Q", head[8:16])[0], 16
            elif length == 0:
                length = end - position
            if length < header:
                return
            yield kind, position + header, position + length
            position += length

    for kind, body, end in boxes(0, size):
        if kind != b"moov":
            continue
        for inner, inner_body, _ in boxes(body, end):
            if inner == b"mvhd":
                data = _read_at(stream, inner_body, 32)
                if data[0] == 1:
                    scale, length = struct.unpack(">IQ", data[20:32])
                else:
                    scale, length = struct.unpack(">II", data[12:20])
                return length / scale if scale else None
    return None


def _vint(data: bytes, at: int, *, keep_marker: bool) -> tuple[int, int]:
    """An EBML variable-length integer at ``at``: (value, its length in bytes)."""
    first = data[at]
    length = 1
    while length <= 8 and not first & (0x80 >> (length - 1)):
        length += 1
    if length > 8:
        raise ValueError("not an EBML number")
    value = first if keep_marker else first & (0xFF >> length)
    for b in data[at + 1:at + length]:
        value = (value << 8) | b
    return value, length


def _webm(stream: IO[bytes], size: int) -> float | None:
    data = _read_at(stream, 0, 65_536)
    scale, duration = 1_000_000, None
    at = 0
    containers = {0x18538067, 0x1549A966}  # Segment and Info: their children are read
    while at < len(data) - 2:
        element, n = _vint(data, at, keep_marker=True)
        length, m = _vint(data, at + n, keep_marker=False)
        body = at + n + m
        if element in containers:
            at = body
            continue
        if element == 0x2AD7B1:
            scale = int.from_bytes(data[body:body + length], "big")
        elif element == 0x4489:
            duration = struct.unpack(">f" if length == 4 else ">d", data[body:body + length])[0]
        elif element == 0x1F43B675:  # the first Cluster: Info is behind
            break
        at = body + length
    return duration * scale / 1e9 if duration else None
