"""How the API's newer staff and worker endpoints document their refusals in the schema: a
``detail`` sentence (401, 403, 404, 409), or the fields at fault with their messages (400)."""

from __future__ import annotations

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
