"""The text of an uploaded file: gunzipped when it is gzip, decoded by its byte-order mark
(UTF-8 otherwise), and never more than the import limit read or unpacked."""

from __future__ import annotations

import codecs
import gzip
import io
import zlib
from pathlib import Path
from typing import IO, Protocol

from django.conf import settings

from annotation.import_errors import ImportFailed, RowError

GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1024 * 1024


# Byte-order marks of the UTF-16 and UTF-32 files spreadsheets save as "Unicode text": such a
# file is read in its encoding; any other file must be UTF-8. UTF-32's marks begin with UTF-16's.
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def decode(data: bytes | IO[bytes] | Path, *, max_decompressed: int | None = None) -> str:
    """The text of an upload given as bytes, a binary file object or a path: UTF-8 with or
    without a BOM (or UTF-16/UTF-32 with theirs), gunzipped first when it is gzip. No more than
    ``max_decompressed`` bytes (default ``settings.IMPORT_MAX_DECOMPRESSED_BYTES``) are read or
    unpacked: a larger file, or a small gzip bomb, is refused instead of filling the memory."""
    limit = settings.IMPORT_MAX_DECOMPRESSED_BYTES if max_decompressed is None else max_decompressed
    if isinstance(data, Path):
        with data.open("rb") as stream:
            return decode(stream, max_decompressed=limit)
    if isinstance(data, bytes | bytearray | memoryview):
        data = bytes(data) if isinstance(data, memoryview) else data
        raw = _gunzip(io.BytesIO(data), limit) if data[:2] == GZIP_MAGIC else data
    else:
        head = data.read(len(GZIP_MAGIC))
        raw = _gunzip(_Prepended(head, data), limit) if head == GZIP_MAGIC else head + data.read(limit + 1)
    if len(raw) > limit:
        raise ImportFailed([RowError(None, None, (
            f"the file is larger than {_size_text(limit)}, the limit for imports (IMPORT_MAX_DECOMPRESSED_MB)"))])
    encoding = next((name for bom, name in _BOMS if raw.startswith(bom)), "utf-8-sig")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        if encoding != "utf-8-sig":
            raise ImportFailed([RowError(None, None, f"the file starts as {encoding.upper()} but is not valid "
                                                     f"{encoding.upper()}; save it as UTF-8")]) from None
        line = raw[: exc.start].count(b"\n") + 1
        raise ImportFailed([RowError(line, None, "the file is not valid UTF-8 (byte "
                                                 f"{raw[exc.start]:#04x}); save it as UTF-8")]) from None


class _Readable(Protocol):
    """What ``GzipFile`` reads from: a binary file object, or ``_Prepended``."""

    def read(self, size: int = -1, /) -> bytes: ...

    def seek(self, offset: int, /) -> object: ...


class _Prepended:
    """A read-only stream of ``head`` followed by the rest of ``stream`` (which need not seek)."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self.head, self.stream = head, stream

    def read(self, size: int = -1) -> bytes:
        if not self.head:
            return self.stream.read(size)
        if size is None or size < 0:
            out, self.head = self.head + self.stream.read(), b""
            return out
        out, self.head = self.head[:size], self.head[size:]
        return out if len(out) == size else out + self.stream.read(size - len(out))

    def seek(self, offset: int, /) -> int:
        # GzipFile seeks its source only to rewind, which reading once from the start never does.
        raise io.UnsupportedOperation("seek")


def _gunzip(stream: _Readable, limit: int) -> bytearray:
    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=stream, mode="rb") as unpacked:
            while chunk := unpacked.read(min(_CHUNK, limit + 1 - len(out))):
                out += chunk
                if len(out) > limit:
                    raise ImportFailed([RowError(None, None, (
                        f"the gzip file unpacks to more than {_size_text(limit)}, the limit for "
                        "decompressed imports (IMPORT_MAX_DECOMPRESSED_MB)"))])
    except (OSError, EOFError, zlib.error) as exc:
        raise ImportFailed([RowError(None, None, f"the gzip file is damaged: {exc}")]) from None
    return out


def _size_text(n: int) -> str:
    mib = 1024 * 1024
    return f"{n // mib} MB" if n % mib == 0 else f"{n} bytes"
