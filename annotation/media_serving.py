"""Sending a project's audio file to a browser: its URL, and a response that streams it from
any storage, with byte ranges.

Audio players ask for ranges (to seek, and Safari before it plays at all), which Django's
FileResponse does not answer; this reads one ``bytes=`` range and streams just that part. Several
ranges in one request get the whole file (allowed by RFC 9110), as does a header this does not
understand. The stored content type always goes out with ``nosniff``, so that a browser never
treats a file as anything but the audio it was checked to be.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import cast

from django.core.files.storage import default_storage
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.http import content_disposition_header

from annotation.models import MediaFile, Project

logger = logging.getLogger(__name__)
CHUNK = 64 * 1024
CACHE_CONTROL = "private, max-age=3600"
# At most 19 digits: beyond 64 bits no file is that large, and Python refuses to read very long
# numbers at all.
_RANGE = re.compile(r"^([0-9]{0,19})-([0-9]{0,19})$")


def media_url(project: Project, key: str) -> str:
    """The path at which members of ``project`` (and staff) fetch the file stored as ``key``."""
    return reverse("media", kwargs={"slug": project.slug, "key": key})


@dataclass(frozen=True)
class ByteRange:
    start: int
    end: int  # inclusive, as in Content-Range

    @property
    def length(self) -> int:
        return self.end - self.start + 1


class RangeNotSatisfiable(Exception):
    """The range starts past the end of the file (or asks for its last 0 bytes): a 416."""


def requested_range(header: str, size: int) -> ByteRange | None:
    """The single byte range a ``Range`` header asks of a ``size``-byte file, or None for the
    whole file (no header, another unit, several ranges, a malformed one). Raises
    RangeNotSatisfiable for a range that lies wholly past the end."""
    unit, _, ranges = header.partition("=")
    if unit.strip().lower() != "bytes" or "," in ranges:
        return None
    match = _RANGE.match(ranges.strip())
    if match is None:
        return None
    first, last = match.groups()
    if first:
        start = int(first)
        end = int(last) if last else None
        if end is not None and end < start:
            return None  # not a valid range: ignored, as RFC 9110 allows
        if start >= size:
            raise RangeNotSatisfiable
        return ByteRange(start, size - 1 if end is None else min(end, size - 1))
    if not last:
        return None
    suffix = int(last)
    if suffix == 0 or size == 0:
        raise RangeNotSatisfiable
    return ByteRange(max(size - suffix, 0), size - 1)


class _FileSlice:
    """``length`` bytes of an open stored file from ``start``, in chunks; closed by the response
    when it is done or the client goes away."""

    def __init__(self, handle, start: int, length: int) -> None:
        self.handle, self.start, self.length = handle, start, length

    def __iter__(self):
        self.handle.seek(self.start)
        remaining = self.length
        while remaining > 0:
            chunk = self.handle.read(min(CHUNK, remaining))
            if not chunk:
                break
            remaining -= len(chunk)
            yield chunk

    def close(self) -> None:
        self.handle.close()


def media_response(request: HttpRequest, media: MediaFile) -> HttpResponseBase:
    """The file (200), the asked part of it (206), 416 for a range past its end, 304 when the
    client's copy is current; HEAD gets the headers alone. Raises FileNotFoundError when the
    storage has lost the file."""
    etag = f'"{media.sha256}"'
    conditional = get_conditional_response(request, etag=etag)
    if conditional is not None:
        return _headers(conditional, media, etag, content=False)
    size = media.size
    byte_range = None
    response: HttpResponseBase
    if request.method == "GET" and _range_applies(request, etag):
        try:
            byte_range = requested_range(request.headers.get("Range", ""), size)
        except RangeNotSatisfiable:
            response = HttpResponse(status=416, content_type="text/plain")
            response["Content-Range"] = f"bytes */{size}"
            return _headers(response, media, etag, content=False)
    if request.method == "HEAD":
        response = HttpResponse(status=200)
        response["Content-Length"] = str(size)
        return _headers(response, media, etag)
    # A recorded media file always has its stored name (the import sets it; the column is NOT NULL).
    handle = default_storage.open(cast(str, media.file.name), "rb")
    if byte_range is None:
        response = StreamingHttpResponse(_FileSlice(handle, 0, size), status=200)
        response["Content-Length"] = str(size)
    else:
        response = StreamingHttpResponse(_FileSlice(handle, byte_range.start, byte_range.length), status=206)
        response["Content-Length"] = str(byte_range.length)
        response["Content-Range"] = f"bytes {byte_range.start}-{byte_range.end}/{size}"
    return _headers(response, media, etag)


def _range_applies(request: HttpRequest, etag: str) -> bool:
    """Without If-Range, or with one naming this version of the file (a date never does: no
    Last-Modified is sent), a range is served; otherwise the whole file goes out."""
    if_range = request.headers.get("If-Range")
    return if_range is None or if_range.strip() == etag


def _headers(response: HttpResponseBase, media: MediaFile, etag: str, *, content: bool = True) -> HttpResponseBase:
    """The headers of every answer about a file; those describing its content only when the
    answer is (or, for HEAD, stands for) that content."""
    if content:
        response["Content-Type"] = media.content_type
        # Played in the page; saved, it takes the name items know it by.
        # A header, never None: a key's last part is not empty (key_problem refuses a trailing '/').
        response["Content-Disposition"] = cast(str, content_disposition_header(False, media.key.rsplit("/", 1)[-1]))
    response["X-Content-Type-Options"] = "nosniff"
    response["Accept-Ranges"] = "bytes"
    response["Cache-Control"] = CACHE_CONTROL
    response["ETag"] = etag
    return response
