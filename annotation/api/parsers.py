"""The API's JSON parser: DRF's, bounded in size and depth.

DRF's own parser reads a body of any size into memory and lets a deeply nested document end in
a RecursionError (a 500); this one refuses both with a 400, and a body that breaks the storage
rule of ``annotation.value_checks`` (NUL characters, numbers beyond 64 bits, nesting past 32 levels)
with a 400 naming the field, before any view sees it. The rule itself is
``annotation.value_checks.json_document``, which code that must read raw bytes (a signed webhook
delivery) calls too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.request import Request

from annotation.value_checks import DocumentRefused, json_document


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        # Read one byte past the limit only: a larger body is refused unread.
        body = stream.read(limit + 1) if limit is not None else stream.read()
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return json_document(body, limit=limit, encoding=encoding)
        except DocumentRefused as exc:
            if exc.problems:
                raise ValidationError(exc.problems) from None
            raise ParseError(str(exc)) from None


def body_fields(request: Request, what: str) -> Mapping[str, Any]:
    """The fields of the request's body: a JSON object, or form fields. Other JSON (an array, a
    number) is refused with a 400 asking for ``what`` as an object."""
    data = request.data
    if not isinstance(data, Mapping):
        raise ValidationError({"body": f"send {what} as a JSON object (or form fields)"})
    return data
