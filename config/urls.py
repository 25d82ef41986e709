from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("annotation.api.urls")),
    path("api/", include("analysis.api")),
    path("", include("annotation.urls")),
    path("", include("analysis.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
]
