from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerSplitView

from annotation.api.schema.views import SchemaView
from annotation.task_types import type_urlpatterns
from runtime.health import health

urlpatterns = [
    # For docker-compose and load balancers: no login, no throttle, answers without the session.
    path("health/", health, name="health"),
    path("admin/", admin.site.urls),
    # The API's OpenAPI 3.1 schema and its browsable docs (assets served from here: works offline).
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    # Swagger UI draws its icons as data: SVG images; an image (SVG included) runs no script, so
    # this page alone lets images come from data: too. Its one inline style is moved to a file
    # (templates/drf_spectacular/swagger_ui.html); scripts stay this site's only.
    path("api/docs/", csp_update({"img-src": ["data:"]})(SpectacularSwaggerSplitView.as_view(url_name="api-schema")),
         name="api-docs"),
    path("api/", include("annotation.api.urls")),
    path("api/", include("analysis.api")),
    path("api/", include("analysis.api_recompute")),
    path("api/", include("quality.api.urls")),
    path("api/", include("recruiting.api.urls")),
    path("", include("annotation.urls")),
    path("", include("analysis.urls")),
    path("", include("quality.urls")),
    path("", include("recruiting.urls")),
    *type_urlpatterns(),
    path("accounts/", include("django.contrib.auth.urls")),
]

# A service that is away (the database, met before any view) answers 503, not 500.
handler500 = "runtime.unavailable_responses.server_error"
# An address no route matches answers JSON under /api/, the page elsewhere.
handler404 = "runtime.not_found.page_not_found"
