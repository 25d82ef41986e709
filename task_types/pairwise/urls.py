"""The gold pipeline's pages, mounted by the task-type registry."""

from django.urls import path

from task_types.pairwise import api, views

urlpatterns = [
    path("projects/<slug:slug>/gold/", views.gold_page, name="gold-page"),
    path("projects/<slug:slug>/gold/runs/<int:run_id>/graph.svg", views.graph, name="gold-graph"),
    path("projects/<slug:slug>/gold/runs/<int:run_id>/files/<str:name>", views.gold_download, name="gold-file"),
    path("projects/<slug:slug>/gold/workers/<int:worker_id>/reject/", views.reject_worker, name="gold-reject-worker"),
    path("api/projects/<slug:slug>/pairs/", api.PairsGenerate.as_view(), name="api-pairwise-pairs"),
    path("api/projects/<slug:slug>/gold/workers/<int:worker_id>/reject/", api.GoldRejectWorker.as_view(),
         name="api-gold-reject-worker"),
]
