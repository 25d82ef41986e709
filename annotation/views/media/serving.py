"""Sending a project's audio file to a browser: its URL, and a response that streams it from
any storage, with byte ranges.

Audio players ask for ranges (to seek, and Safari before it plays at all), which Django's
FileResponse does not answer; this reads one ``bytes=`` range and streams just that part. Several
ranges in one request get the whole file (allowed by RFC 9110), as does a header this does not
understand. The stored content type always goes out with ``nosniff``, so that a browser never
treats a file as anything but the audio it was checked to be.

On S3 storage, opening a stored file downloads the whole object; a range request is sent
instead to a short-lived presigned URL of the object (307), which answers ranges itself and
forces the stored content type and file name, so the web process moves no audio at all.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.utils.http import content_disposition_header

from annotation.media.formats import EXTENSIONS
from annotation.models import Assignment, MediaFile, Project

logger = logging.getLogger(__name__)
CHUNK = 64 * 1024
CACHE_CONTROL = "private, max-age=3600"
# At most 19 digits: beyond 64 bits no file is that large, and Python refuses to read very long
# numbers at all.
_RANGE = re.compile(r"^([0-9]{0,19})-([0-9]{0,19})$")


def media_url(project: Project, key: str) -> str:
    """The path at which staff fetch the project's file stored as ``key`` (a worker fetches an
    item's files through its assignment, under references: ``annotation.media.refs``)."""
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


# While a file goes out, the bytes sent so far are reported every this many (and at the end),
# so that a long stream counts before it is over.
REPORT_EVERY = 1024 * 1024
SentReport = Callable[[int, int], None]


class FileSlice:
    """``length`` bytes of an open stored file from ``start``, in chunks; closed by the response
    when it is done or the client goes away. With ``on_sent``, the bytes actually sent, as
    ``on_sent(start, end)`` ([start, end)): a chunk counts once the server asks for the next one,
    that is once it has written it out, so a client that hangs up early is credited with what
    it got, not with what it asked for."""

    def __init__(self, handle, start: int, length: int, on_sent: SentReport | None = None) -> None:
        self.handle, self.start, self.length, self.on_sent = handle, start, length, on_sent
        self.sent = self.reported = 0

    def __iter__(self):
        self.handle.seek(self.start)
        remaining = self.length
        while remaining > 0:
            chunk = self.handle.read(min(CHUNK, remaining))
            if not chunk:
                break
            remaining -= len(chunk)
            yield chunk
            self.sent += len(chunk)
            if self.sent - self.reported >= REPORT_EVERY:
                self._report()

    def _report(self) -> None:
        if self.on_sent is None or self.sent <= self.reported:
            return
        self.reported = self.sent
        try:
            self.on_sent(self.start, self.start + self.sent)
        except Exception:
            # The file still goes out: the record only ever says less was sent than was.
            logger.warning("could not record %s bytes sent", self.sent, exc_info=True)

    def close(self) -> None:
        try:
            self._report()
        finally:
            self.handle.close()


def media_response(request: HttpRequest, media: MediaFile, *, name: str | None = None,
                   on_sent: SentReport | None = None) -> HttpResponseBase:
    """The file (200), the asked part of it (206), 416 for a range past its end, 304 when the
    client's copy is current; HEAD gets the headers alone. The file is saved as ``name`` (with
    the extension of its type) when given, under its key otherwise; ``on_sent`` hears of the
    bytes sent (see FileSlice). Raises FileNotFoundError when the storage has lost the file."""
    etag = f'"{media.sha256}"'
    conditional = get_conditional_response(request, etag=etag)
    if conditional is not None:
        return _headers(conditional, media, etag, name=name, content=False)
    size = media.size
    byte_range = None
    response: HttpResponseBase
    if request.method == "GET" and _range_applies(request, etag):
        try:
            byte_range = requested_range(request.headers.get("Range", ""), size)
        except RangeNotSatisfiable:
            response = HttpResponse(status=416, content_type="text/plain")
            response["Content-Range"] = f"bytes */{size}"
            return _headers(response, media, etag, name=name, content=False)
    if request.method == "HEAD":
        response = HttpResponse(status=200)
        response["Content-Length"] = str(size)
        return _headers(response, media, etag, name=name)
    if byte_range is not None:
        presigned = _presigned_url(media, name=name)
        if presigned is not None:
            return _redirect(presigned, byte_range, on_sent)
    # A recorded media file always has its stored name (the import sets it; the column is NOT NULL).
    handle = default_storage.open(cast(str, media.file.name), "rb")
    if byte_range is None:
        response = StreamingHttpResponse(FileSlice(handle, 0, size, on_sent), status=200)
        response["Content-Length"] = str(size)
    else:
        response = StreamingHttpResponse(FileSlice(handle, byte_range.start, byte_range.length, on_sent), status=206)
        response["Content-Length"] = str(byte_range.length)
        response["Content-Range"] = f"bytes {byte_range.start}-{byte_range.end}/{size}"
    return _headers(response, media, etag, name=name)


def assignment_media_response(request: HttpRequest, assignment: Assignment, media: MediaFile,
                              ref: str) -> HttpResponseBase:
    """``media_response`` for the worker of ``assignment``, the file named by its reference
    ``ref``; while the assignment is open, the request is recorded as a fetch and the bytes it
    sends as served. Raises FileNotFoundError as media_response does."""
    from annotation.services.media.uses import media_use_fetched, media_use_served

    recording = request.method == "GET" and assignment.status == Assignment.Status.ASSIGNED

    def sent(start: int, end: int) -> None:
        media_use_served(assignment=assignment, media=media, start=start, end=end)

    response = media_response(request, media, name=ref, on_sent=sent if recording else None)
    if recording and response.status_code in (200, 206, 304, 307):
        try:
            media_use_fetched(assignment=assignment, media=media, now=timezone.now())
        except DatabaseError:
            # The file still goes out: a player asks for several ranges, and one recorded will do.
            logger.warning("could not record a fetch of %s for assignment %s", media.key, assignment.pk, exc_info=True)
    return response


def _presigned_url(media: MediaFile, *, name: str | None) -> str | None:
    """A presigned URL of the stored object when the storage is S3 (django-storages), with the
    response headers the object must go out with; None for other storages."""
    try:
        from storages.backends.s3 import S3Storage  # type: ignore[import-untyped]
    except ImportError:  # django-storages' S3 part needs boto3, absent where S3 is not used
        return None
    if not isinstance(default_storage, S3Storage):
        return None
    parameters = {"ResponseContentType": media.content_type,
                  "ResponseContentDisposition": _disposition(media, name),
                  "ResponseCacheControl": CACHE_CONTROL}
    return default_storage.url(cast(str, media.file.name), parameters=parameters,
                               expire=settings.MEDIA_PRESIGNED_SECONDS)


def _redirect(url: str, byte_range: ByteRange, on_sent: SentReport | None) -> HttpResponseBase:
    """307 to the presigned URL (the player asks it for the same range). The range counts as
    sent when the address is handed out: from here on the bytes travel without the server."""
    response = HttpResponseRedirect(url, status=307)
    # The address expires; the browser must ask again rather than reuse it.
    response["Cache-Control"] = "private, no-store"
    if on_sent is not None:
        try:
            on_sent(byte_range.start, byte_range.end + 1)
        except Exception:
            logger.warning("could not record the range handed out", exc_info=True)
    return response


def _disposition(media: MediaFile, name: str | None) -> str:
    # Played in the page; saved, it takes the name given (a worker's: the file's reference),
    # or the one items know it by. A header, never None: neither is empty (key_problem
    # refuses a key with a trailing '/').
    filename = f"{name}.{EXTENSIONS[media.content_type]}" if name else media.key.rsplit("/", 1)[-1]
    return cast(str, content_disposition_header(False, filename))


def _range_applies(request: HttpRequest, etag: str) -> bool:
    """Without If-Range, or with one naming this version of the file (a date never does: no
    Last-Modified is sent), a range is served; otherwise the whole file goes out."""
    if_range = request.headers.get("If-Range")
    return if_range is None or if_range.strip() == etag


def _headers(response: HttpResponseBase, media: MediaFile, etag: str, *, name: str | None,
             content: bool = True) -> HttpResponseBase:
    """The headers of every answer about a file; those describing its content only when the
    answer is (or, for HEAD, stands for) that content."""
    if content:
        response["Content-Type"] = media.content_type
        response["Content-Disposition"] = _disposition(media, name)
    response["X-Content-Type-Options"] = "nosniff"
    response["Accept-Ranges"] = "bytes"
    response["Cache-Control"] = CACHE_CONTROL
    response["ETag"] = etag
    return response
