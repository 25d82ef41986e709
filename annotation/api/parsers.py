"""The API's JSON parser: DRF's, bounded in size and depth.

DRF's own parser reads a body of any size into memory and lets a deeply nested document end in
a RecursionError (a 500); this one refuses both with a 400, and a body that breaks the storage
rule of ``annotation.value_checks`` (NUL characters, numbers beyond 64 bits, nesting past 32 levels)
with a 400 naming the field, before any view sees it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.request import Request

from annotation.value_checks import field_problems, value_problem


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = stream.read(limit + 1) if limit is not None else stream.read()
        if limit is not None and len(body) > limit:
            raise ParseError(f"The JSON body is larger than the limit of {limit} bytes.")
        try:
            data = super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the document is nested too deeply.") from None
        if isinstance(data, dict):
            problems = field_problems(data)
            if problems:
                raise ValidationError(problems)
        else:
            problem = value_problem(data)
            if problem:
                raise ValidationError({problem[0] or "body": problem[1]})
        return data


def body_fields(request: Request, what: str) -> Mapping[str, Any]:
    """The fields of the request's body: a JSON object, or form fields. Other JSON (an array, a
    number) is refused with a 400 asking for ``what`` as an object."""
    data = request.data
    if not isinstance(data, Mapping):
        raise ValidationError({"body": f"send {what} as a JSON object (or form fields)"})
    return data
