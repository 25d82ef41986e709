"""How every API operation is described in the OpenAPI schema (``DEFAULT_SCHEMA_CLASS``).

drf-spectacular's ``AutoSchema`` plus the answers that any operation can give whatever its view
does, so that no view repeats them and none is left out of the schema:

- 400 and 415 where the operation reads a body: every body goes through ``SafeJSONParser`` (or
  the form parsers), which refuse unreadable, too deep or too large bodies, and DRF refuses a
  content type that none of the view's parsers reads;
- 413 wherever a body may be sent (POST, PUT, PATCH): a body over 64 KB from a caller who is not
  logged in, or to an operation that takes no login, is refused unread
  (``annotation.body_limits``);
- 403 unless anyone may call it: not logged in (the session comes first among the
  authentication classes, so DRF answers 403, never 401), a bad token, a session request
  without its CSRF token, or a missing permission;
- 404 where the path names something (a project, an id) or the list is paginated (a page out of
  range), always as ``annotation.api.unseen`` answers;
- 429 from the throttles and 503 while the database is away
  (``runtime.unavailable_responses``), both with ``Retry-After``.

A view declares what its own logic answers (201, 409, a 400 of another shape) with
``extend_schema``; a code it declares is left as it declared it.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import permissions

from annotation.api.schema.errors import ErrorDetail, FieldErrors, WaitAndRetry, error

BODY_METHODS = ("POST", "PUT", "PATCH")

RETRY_AFTER = OpenApiParameter(
    "Retry-After", OpenApiTypes.INT, OpenApiParameter.HEADER, response=[429, 503], required=False,
    description="Seconds to wait before trying again.",
)

COMMON = {
    "400": error("The body could not be read (not JSON or form fields, too large, nested too deeply, a NUL "
                 "character, a number beyond 64 bits) or a field is invalid; each field is named.", FieldErrors),
    "403": error("Not logged in (no valid token or session), a session request without its CSRF token, or "
                 "without the permission the operation needs."),
    "404": error("Not found, or not for the caller to see: the same answer either way "
                 "(`{\"detail\": \"Not found.\"}`), or a page number out of range."),
    "413": error("The body is larger than an operation takes without a login (64 KB): refused unread.",
                 ErrorDetail),
    "415": error("The body's content type is not one the operation reads.", ErrorDetail),
    "429": error("Too many requests: throttled (or, for a token, the login locked out). Retry after the "
                 "seconds in Retry-After.", WaitAndRetry),
    "503": error("A service the request needs (the database) is briefly away; nothing was lost. Retry after "
                 "the seconds in Retry-After.", WaitAndRetry),
}


class ApiAutoSchema(AutoSchema):
    def get_override_parameters(self):
        return [*super().get_override_parameters(), RETRY_AFTER]

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in self._common_codes():
            if code not in responses:
                responses[code] = self._get_response_for_code(COMMON[code], code, direction=direction)
        return dict(sorted(responses.items()))

    def _common_codes(self) -> list[str]:
        codes = ["429", "503"]
        if self.method in BODY_METHODS:
            codes.append("413")
            if self.get_request_serializer() is not None:
                codes += ["400", "415"]
        if permissions.AllowAny not in [type(p) for p in self.view.get_permissions()]:
            codes.append("403")
        if "{" in self.path or (self.method == "GET" and self._is_list_view() and self._get_paginator()):
            codes.append("404")
        return codes


def nulls_as_openapi_3_1(result, generator, request, public):
    """A postprocessing hook: how a value may be null, said the OpenAPI 3.1 way.

    DRF's paginators describe ``next`` and ``previous`` with 3.0's ``nullable``, which 3.1
    dropped (a validator ignores it and refuses their nulls): 3.1 says it with the type
    ``[..., "null"]``. A nullable JSON field comes out as ``oneOf: [{}, {"type": "null"}]``,
    which no null satisfies (it matches both); any value, null included, is ``{}``."""

    def visit(node):
        if isinstance(node, dict):
            if node.get("nullable") is True and isinstance(node.get("type"), str):
                del node["nullable"]
                node["type"] = [node["type"], "null"]
            if isinstance(node.get("oneOf"), list) and {} in node["oneOf"]:
                del node["oneOf"]
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(result)
    return result
