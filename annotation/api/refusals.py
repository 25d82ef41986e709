"""How the API's newer staff and worker endpoints document their refusals in the schema: a
``detail`` sentence (401, 403, 404, 409), or the fields at fault with their messages (400)."""

from __future__ import annotations

from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as ModelValidationError
from django.db.models import F, Model
from django.db.models.constraints import BaseConstraint
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class DetailRefusalSerializer(serializers.Serializer):
    detail = serializers.CharField()


SAID = {
    400: "Bad input: an object whose keys name the fields at fault, each with its messages.",
    401: "Not logged in (no session and no token).",
    403: "Logged in without the permission this action needs.",
    404: "Not found, or not in this project (another project's ids change nothing).",
    409: "Refused in the record's present state; `detail` says why.",
}


def refusals(*codes: int) -> dict[int, OpenApiResponse]:
    """The schema's responses for the refusals ``codes`` (401 and 403 are always added)."""
    wanted = sorted({401, 403, *codes})
    return {code: OpenApiResponse(OpenApiTypes.OBJECT if code == 400 else DetailRefusalSerializer,
                                  description=SAID[code]) for code in wanted}


def model_errors(exc: ModelValidationError, model: type[Model]) -> dict[str, list[str]]:
    """A model's ValidationError as field -> messages: a check or unique constraint's violation,
    which Django reports for no field, goes to the fields the constraint names."""
    if not hasattr(exc, "error_dict"):
        return {"detail": list(exc.messages)}
    errors = {name: list(messages) for name, messages in exc.message_dict.items()}
    for message in errors.pop(NON_FIELD_ERRORS, []):
        fields = [name for c in model._meta.constraints if f"“{c.name}”" in message for name in _constraint_fields(c)]
        for name in fields or ["detail"]:
            errors.setdefault(name, []).append(message)
    return errors


def _constraint_fields(constraint: BaseConstraint) -> list[str]:
    condition = getattr(constraint, "condition", None)
    found = set(condition.referenced_base_fields) if condition is not None else set()
    found |= set(getattr(constraint, "fields", ()) or ())
    for expression in getattr(constraint, "expressions", ()) or ():
        # An F names its field in ``name`` (which the type stubs leave out).
        found |= {str(e.name) for e in expression.flatten() if isinstance(e, F)}  # type: ignore[attr-defined]
    return sorted(found)
