"""The type's own page: a finished report run's scores as JSON Lines (the CSV is the generic
report page's file)."""

from django.urls import path

from task_types.response_scoring import views

urlpatterns = [
    path("projects/<slug:slug>/response-scores/runs/<int:run_id>/scores.jsonl", views.scores_jsonl,
         name="response-scores-jsonl"),
]
