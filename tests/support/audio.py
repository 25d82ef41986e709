"""Tiny but well-formed audio files of each format the platform takes, and zips of them."""

from __future__ import annotations

import io
import math
import struct
import wave
import zipfile


def wav(frames: int = 200, *, rate: int = 8000) -> bytes:
    """A mono 16-bit WAV written by Python's wave module; its samples count up, so that any
    range of it is distinguishable from another."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", i % 30000) for i in range(frames)))
    return buffer.getvalue()


def tone(seconds: float = 1.5, *, rate: int = 8000) -> bytes:
    """A 440 Hz sine tone of ``seconds`` as a mono 16-bit WAV: a clip a browser plays."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / rate)))
                               for i in range(int(seconds * rate))))
    return buffer.getvalue()


def mp3_frames(count: int = 3) -> bytes:
    """MPEG-1 Layer III frames at 128 kbit/s, 44.1 kHz: a frame is 144 * 128000 / 44100 = 417
    bytes; the audio data is silence."""
    header = bytes([0xFF, 0xFB, 0x90, 0x64])
    return (header + bytes(417 - len(header))) * count


def mp3_with_id3() -> bytes:
    """An ID3v2.4 tag of 10 padding bytes in front of MPEG frames."""
    return b"ID3\x04\x00\x00" + bytes([0, 0, 0, 10]) + bytes(10) + mp3_frames(2)


def ogg_page(packet: bytes) -> bytes:
    """The first page of an Ogg stream carrying ``packet`` (the CRC is left zero)."""
    return (b"OggS" + bytes([0, 0x02]) + bytes(8) + struct.pack("<II", 1234, 0) + bytes(4)
            + bytes([1, len(packet)]) + packet)


def ogg_opus() -> bytes:
    head = b"OpusHead" + bytes([1, 2]) + struct.pack("<HIhB", 312, 48000, 0, 0)
    return ogg_page(head) + bytes(100)


def ogg_vorbis() -> bytes:
    ident = b"\x01vorbis" + struct.pack("<IBIiii", 0, 2, 44100, 0, 128000, 0) + bytes([0xB8, 0x01])
    return ogg_page(ident) + bytes(100)


def ogg_theora() -> bytes:
    """An Ogg stream of video: not audio."""
    return ogg_page(b"\x80theora" + bytes(34))


def flac() -> bytes:
    """The FLAC marker and a last-block STREAMINFO of 34 bytes."""
    return b"fLaC" + bytes([0x80, 0, 0, 34]) + bytes(34) + bytes(64)


def m4a() -> bytes:
    """An ``ftyp`` box of an M4A file, followed by an empty ``mdat`` box."""
    ftyp = b"ftyp" + b"M4A " + bytes(4) + b"M4A " + b"isom" + b"mp42"
    return struct.pack(">I", 4 + len(ftyp)) + ftyp + struct.pack(">I", 8) + b"mdat"


def webm() -> bytes:
    """An EBML header declaring the DocType webm."""
    return bytes.fromhex("1a45dfa3") + bytes([0x9F]) + bytes.fromhex("4282") + bytes([0x84]) + b"webm" + bytes(40)


HTML = b"<!DOCTYPE html><html><body><script>alert(1)</script></body></html>"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(4) + b"IHDR" + bytes(17)


def zip_of(files: dict[str, bytes], *, manifest: str | bytes | None = None) -> bytes:
    """A zip of ``files`` (path inside the zip: content), with ``manifest.csv`` if given."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        if manifest is not None:
            zf.writestr("manifest.csv", manifest)
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def stored_files(media_root) -> list[str]:
    """Every file under ``media_root``, relative to it."""
    return sorted(p.relative_to(media_root).as_posix() for p in media_root.rglob("*") if p.is_file())
