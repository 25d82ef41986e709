"""The view that serves the OpenAPI schema, described in the schema as it answers: 200 with the
document, 404 (the API's JSON shape) for a ``format`` it does not serve."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from drf_spectacular.views import SpectacularAPIView

from annotation.api.schema.errors import ErrorDetail


@extend_schema_view(get=extend_schema(responses={
    200: OpenApiTypes.OBJECT,
    404: OpenApiResponse(ErrorDetail, description="A format the schema is not served in (json and yaml are)."),
}))
class SchemaView(SpectacularAPIView):
    pass
