"""The API's error answers, as the OpenAPI schema names them.

Every error the API gives is a JSON object. Most carry DRF's ``detail``; a 400 about the body
names each field at fault (``{"field": ["message"]}``); a 429 or 503 also asks the client to wait
(``Retry-After`` header, and ``retry_after`` where the body carries it). ``ApiAutoSchema``
(``annotation.api.autoschema``) adds the answers every operation can give (403, 404, 429, 503 …);
a view declares the ones its own logic gives (409, a 400 of its own shape) with ``error``.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorDetail(serializers.Serializer):
    """DRF's error shape: 403, 404, 405, 409, 415 and the like."""

    detail = serializers.CharField(help_text="What went wrong, in words.")


class FieldErrors(serializers.Serializer):
    """A 400: each key names a field of the request (or ``body``, ``detail``, ``non_field_errors``),
    its value the message or list of messages about it (nested for nested fields)."""


class WaitAndRetry(serializers.Serializer):
    """A 429 (throttled, or a locked-out login) or a 503 (a service briefly away)."""

    detail = serializers.CharField(help_text="What happened and how long to wait.")
    retry_after = serializers.IntegerField(
        required=False, min_value=0,
        help_text="Seconds to wait, as in the Retry-After header (always there on a 503 and a lockout).")


# A field named like a Serializer attribute (errors, partial, required, source, label) is the
# answer's key; DRF's metaclass moves declared fields off the class, so the names never clash at
# run time (the type checker sees the class body only).
class RowErrors(serializers.Serializer):
    """A 400 of an import: nothing was written; every bad row with its line (or record), field
    and message. A 400 about the request itself (no ``file``, an option out of range, a file over
    the upload limit) names the field instead, as any 400 does."""

    detail = serializers.CharField(required=False)
    errors = serializers.ListField(  # type: ignore[assignment]
        child=serializers.DictField(child=serializers.JSONField()), required=False,
        help_text="One object per bad row: `line` or `record`, `field`, `message`.")
    error_count = serializers.IntegerField(required=False, help_text="Bad rows in all (`errors` may list fewer).")


class FieldErrorsSchema(OpenApiSerializerExtension):
    """``FieldErrors`` as a free-form object: its keys are the request's field names."""

    target_class = FieldErrors

    def map_serializer(self, auto_schema, direction):
        return {"type": "object", "description": FieldErrors.__doc__, "additionalProperties": {}}


def error(description: str, body=ErrorDetail) -> OpenApiResponse:
    """A documented error answer: ``{"detail": ...}`` unless ``body`` says otherwise."""
    return OpenApiResponse(response=body, description=description)


def field_errors(description: str = "A field of the request is missing or invalid; each is named.") -> OpenApiResponse:
    return OpenApiResponse(response=FieldErrors, description=description)


def conflict(description: str) -> OpenApiResponse:
    return error(f"Conflict: {description}")


def restart_conflict(what: str, *, also: str = "") -> OpenApiResponse:
    """The 409 of a restart (``jobs.services.job_restart``): what it refuses, and the two states
    that look busy but may be restarted."""
    return conflict(
        f"the {what} is queued and was sent to the job queue no more than `JOB_QUEUED_SECONDS` ago "
        f"(default 300 s), is running on a live worker, or is done{also}. A {what} queued for longer "
        "(its message may be lost), and a running one whose worker sent no heartbeat for "
        "`JOB_DEAD_SECONDS` (default 45 s), can be restarted.")
