from django.contrib import admin
from django.urls import include, path

from annotation.task_types import type_urlpatterns
from config.health import health

urlpatterns = [
    # For docker-compose and load balancers: no login, no throttle, answers without the session.
    path("health/", health, name="health"),
    path("admin/", admin.site.urls),
    path("api/", include("annotation.api.urls")),
    path("api/", include("analysis.api")),
    path("", include("annotation.urls")),
    path("", include("analysis.urls")),
    *type_urlpatterns(),
    path("accounts/", include("django.contrib.auth.urls")),
]

# A service that is away (the database, met before any view) answers 503, not 500.
handler500 = "config.unavailable_responses.server_error"
