from django.contrib import admin
from django.urls import include, path

from annotation.task_types import type_urlpatterns

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("annotation.api.urls")),
    path("api/", include("analysis.api")),
    path("", include("annotation.urls")),
    path("", include("analysis.urls")),
    *type_urlpatterns(),
    path("accounts/", include("django.contrib.auth.urls")),
]
