"""The counter-speech type's API, mounted by the task-type registry."""

from django.urls import path

from task_types.counter_speech import api

urlpatterns = [
    path("api/projects/<slug:slug>/counter-speech/build/", api.QuestionsBuild.as_view(), name="api-counter-speech-build"),
]
