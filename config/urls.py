from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from annotation.task_types import type_urlpatterns
from config.health import health

urlpatterns = [
    # For docker-compose and load balancers: no login, no throttle, answers without the session.
    path("health/", health, name="health"),
    path("admin/", admin.site.urls),
    # The API's OpenAPI 3.1 schema and its browsable docs (assets served from here: works offline).
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("annotation.api.urls")),
    path("api/", include("analysis.api")),
    path("", include("annotation.urls")),
    path("", include("analysis.urls")),
    *type_urlpatterns(),
    path("accounts/", include("django.contrib.auth.urls")),
]

# A service that is away (the database, met before any view) answers 503, not 500.
handler500 = "config.unavailable_responses.server_error"
# An address no route matches answers JSON under /api/, the page elsewhere.
handler404 = "config.not_found.page_not_found"
