"""How the API describes itself: drf-spectacular's settings for the OpenAPI 3.1 schema served at
``/api/schema/`` and the browsable docs at ``/api/docs/`` (Swagger UI from the sidecar package, so
the page needs no CDN and works offline)."""

from __future__ import annotations

SPECTACULAR_SETTINGS = {
    "TITLE": "argcrowd API",
    "DESCRIPTION": (
        "Projects, items, assignments and answers of the crowd-annotation platform, for annotators' "
        "clients and staff scripts. Authenticate with `Authorization: Token <key>` (POST /api/token/) "
        "or a browser session. What a caller may not see answers 404."
    ),
    "VERSION": "1",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "LICENSE": {"name": "Apache-2.0"},
}
