"""What an audio file is, told from its first bytes rather than its name.

A name is whatever the uploader typed: an HTML page called ``speech.mp3`` must not be stored and
later served as audio, so the stored content type always comes from the content. Pure: no Django
here, so the import code, the tests and a script can share it.
"""

from __future__ import annotations

# Bytes of a file read to tell its type: enough for an Ogg page header with a full segment
# table (27 + 255 bytes) and the codec signature after it.
SNIFF_BYTES = 512

MPEG, WAV, OGG, FLAC, MP4, WEBM = "audio/mpeg", "audio/wav", "audio/ogg", "audio/flac", "audio/mp4", "audio/webm"
# The content types that may be stored, with the extension of their stored names.
EXTENSIONS = {MPEG: "mp3", WAV: "wav", OGG: "ogg", FLAC: "flac", MP4: "m4a", WEBM: "webm"}
AUDIO_CONTENT_TYPES = tuple(EXTENSIONS)
# Names that are taken for audio files in a zip or folder without a manifest; their content is
# still checked.
AUDIO_SUFFIXES = (".mp3", ".wav", ".wave", ".ogg", ".oga", ".opus", ".flac", ".m4a", ".mp4", ".aac",
                  ".webm", ".weba", ".mka")
KNOWN_FORMATS = "MP3, WAV, Ogg (Opus, Vorbis, FLAC), FLAC, MP4/M4A or WebM"

# Codecs that make an Ogg stream audio (Theora, for one, is video).
_OGG_AUDIO_CODECS = (b"OpusHead", b"\x01vorbis", b"\x7fFLAC", b"Speex   ")
# ISO base media brands of audio files; mp42/isom also open video files, which a browser's audio
# element plays for their sound track.
_MP4_BRANDS = {b"M4A ", b"M4B ", b"mp42", b"mp41", b"isom", b"iso2", b"dash"}


def sniff_audio(head: bytes) -> str | None:
    """The audio content type of a file starting with ``head`` (its first ``SNIFF_BYTES``
    bytes, or all of a shorter file), or None when it is not audio this platform serves."""
    if head.startswith(b"ID3") and _id3_header(head):
        return MPEG
    if _mpeg_frame(head):
        return MPEG
    if (head[:4] in (b"RIFF", b"RF64")) and head[8:12] == b"WAVE":
        return WAV
    if head.startswith(b"fLaC"):
        return FLAC
    if head.startswith(b"OggS") and _ogg_audio(head):
        return OGG
    if head[4:8] == b"ftyp" and _mp4_audio(head):
        return MP4
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return WEBM
    return None


def describe(head: bytes) -> str:
    """What a refused file looks like, in words for the error message."""
    if not head:
        return "it is empty"
    for magic, what in (
        (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
        (b"%PDF", "a PDF document"), (b"PK\x03\x04", "a zip archive"), (b"\x1f\x8b", "a gzip archive"),
        (b"OggS", "an Ogg stream without audio"), (b"ID3", "a broken ID3 tag"),
    ):
        if head.startswith(magic):
            return f"it looks like {what}"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<script")):
        return "it looks like an HTML page"
    if text.startswith((b"<?xml", b"<svg")):
        return "it looks like XML or SVG"
    try:
        decoded = head.decode("utf-8")
    except UnicodeDecodeError:
        # The head may end inside a character: only an error before its last 3 bytes counts.
        try:
            decoded = head[:-3].decode("utf-8")
        except UnicodeDecodeError:
            return "its first bytes match no known audio format"
    if any(ord(c) < 32 and c not in "\t\r\n" for c in decoded):
        return "its first bytes match no known audio format"
    return "it looks like text"


def _id3_header(head: bytes) -> bool:
    """An ID3v2 tag header: version 2 to 4 and a size written in 7-bit bytes."""
    return len(head) >= 10 and head[3] in (2, 3, 4) and head[4] != 0xFF and all(b < 0x80 for b in head[6:10])


def _mpeg_frame(head: bytes) -> bool:
    """An MPEG audio frame header: 11 sync bits, then a version, a layer, a bitrate and a
    sampling rate that are not the reserved or "bad" values."""
    if len(head) < 4 or head[0] != 0xFF or head[1] & 0xE0 != 0xE0:
        return False
    version = (head[1] >> 3) & 0b11
    layer = (head[1] >> 1) & 0b11
    bitrate = head[2] >> 4
    sampling = (head[2] >> 2) & 0b11
    # Layer 00 is reserved (and is what ADTS AAC puts there); bitrate 0 is "free format", which
    # browsers do not play.
    return version != 0b01 and layer != 0b00 and bitrate not in (0b0000, 0b1111) and sampling != 0b11


def _ogg_audio(head: bytes) -> bool:
    """The first Ogg page starts a stream of an audio codec."""
    if len(head) < 27 or head[4] != 0:  # stream structure version 0
        return False
    segments = head[26]
    packet = head[27 + segments:]
    return packet.startswith(_OGG_AUDIO_CODECS)


def _mp4_audio(head: bytes) -> bool:
    """An ISO base media ``ftyp`` box whose major or a compatible brand is an audio one."""
    size = int.from_bytes(head[:4], "big")
    if size < 16 or size % 4:
        return False
    box = head[8:min(size, len(head))]
    # The major brand, a minor version (a number), then the compatible brands.
    brands = {box[:4]} | {box[i:i + 4] for i in range(8, len(box) - 3, 4)}
    return bool(brands & _MP4_BRANDS)
