"""A size limit on uploaded files, enforced while the request streams in.

``UploadLimitHandler`` comes first in ``FILE_UPLOAD_HANDLERS``: it counts the bytes of the files
in a request and, past ``settings.UPLOAD_MAX_BYTES``, drops the file before the next handler
(memory or temporary file) gets more of it. The rest of a moderately oversized file is read and
thrown away so that the form's other fields still arrive; a body more than twice the limit is
not read any further. The views that take uploads call ``upload_form_is_valid`` (forms) or
``refuse_oversized_upload`` (API) to turn a dropped file into an error naming its field.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, SkipFile, StopUpload
from django.http import HttpRequest
from rest_framework.exceptions import ValidationError

MIB = 1024 * 1024
# The request attribute holding {field name: message} for files dropped for their size.
REFUSED_ATTR = "uploads_refused"


def limit_text(limit: int) -> str:
    return f"{limit // MIB} MB" if limit % MIB == 0 else f"{limit} bytes"


def too_large_message(file_name: str, limit: int) -> str:
    return f"The file {file_name!r} is larger than the {limit_text(limit)} limit for uploads."


class UploadLimitHandler(FileUploadHandler):
    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.limit = settings.UPLOAD_MAX_BYTES
        self.received = 0
        self.body_length = 0

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        self.body_length = content_length or 0
        return None  # let the multipart parser read the body

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        # Counted over every file of the request: one upload must not split into many parts.
        self.received += len(raw_data)
        if self.received <= self.limit:
            return raw_data
        if self.request is not None:
            refused = getattr(self.request, REFUSED_ATTR, {})
            refused[self.field_name] = too_large_message(self.file_name or "", self.limit)
            setattr(self.request, REFUSED_ATTR, refused)
        if self.body_length > 2 * self.limit:
            raise StopUpload(connection_reset=True)
        raise SkipFile

    def file_complete(self, file_size: int):
        return None  # the next handler holds the file


def uploads_refused(request) -> dict[str, str]:
    """{field name: message} for the files of this request dropped for their size (a Django or
    DRF request; reading ``FILES`` parses the body first if nothing has yet)."""
    request.FILES  # noqa: B018 - parsing the body is what records refusals
    return dict(getattr(request, REFUSED_ATTR, {}))


def upload_form_is_valid(request: HttpRequest, form: forms.Form) -> bool:
    """``form.is_valid()``, except that a file dropped for its size is reported on its field
    (instead of "This field is required")."""
    valid = form.is_valid()
    for field, message in uploads_refused(request).items():
        form.errors[field] = form.error_class([message])
        valid = False
    return valid


def refuse_oversized_upload(request) -> None:
    """For API views: a 400 naming the field of a file dropped for its size."""
    refused = uploads_refused(request)
    if refused:
        raise ValidationError(refused)
