"""The key-point type's pages and API, mounted by the task-type registry."""

from django.urls import path

from task_types.key_points import api, cancel_api, tools_api, views

urlpatterns = [
    path("projects/<slug:slug>/key-points/evaluations/", views.evaluations, name="key-points-evaluations"),
    path("projects/<slug:slug>/key-points/evaluations/<int:pk>/", views.evaluation, name="key-points-evaluation"),
    path("projects/<slug:slug>/key-points/evaluations/<int:pk>/cancel/", views.evaluation_stop,
         name="key-points-evaluation-cancel"),
    path("projects/<slug:slug>/key-points/kpa.zip", views.corpus_zip, name="key-points-corpus"),
    path("projects/<slug:slug>/key-points/runs/<int:run_id>/labels.zip", views.labels_zip, name="key-points-labels-zip"),
    path("api/projects/<slug:slug>/key-points/evaluations/", api.Evaluations.as_view(), name="api-key-points-evaluations"),
    path("api/key-points/evaluations/<int:pk>/", api.EvaluationDetail.as_view(), name="api-key-points-evaluation"),
    path("api/projects/<slug:slug>/key-points/evaluations/<int:pk>/cancel/", cancel_api.EvaluationCancel.as_view(),
         name="api-key-points-evaluation-cancel"),
    path("api/projects/<slug:slug>/key-points/import/", tools_api.CorpusImport.as_view(), name="api-key-points-import"),
    path("api/projects/<slug:slug>/key-points/track2/", tools_api.Track2.as_view(), name="api-key-points-track2"),
]
