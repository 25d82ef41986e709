"""The key-point set type's API, mounted by the task-type registry."""

from django.urls import path

from task_types.key_point_sets import api

urlpatterns = [
    path("api/projects/<slug:slug>/key-point-sets/build/", api.SetsBuild.as_view(), name="api-key-point-sets-build"),
]
