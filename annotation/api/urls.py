from django.urls import path

from annotation.api import media, plays, quality, revisions, tokens, views

urlpatterns = [
    path("token/", tokens.TokenObtain.as_view(), name="api-token"),
    path("task-types/", views.TaskTypeList.as_view(), name="api-task-types"),
    path("projects/", views.ProjectList.as_view(), name="api-projects"),
    path("projects/<slug:slug>/", views.ProjectDetail.as_view(), name="api-project"),
    path("projects/<slug:slug>/progress/", views.ProjectProgressView.as_view(), name="api-progress"),
    path("projects/<slug:slug>/items/", views.ItemList.as_view(), name="api-items"),
    path("projects/<slug:slug>/items/import/", views.ItemImport.as_view(), name="api-items-import"),
    path("projects/<slug:slug>/media/", media.MediaFiles.as_view(), name="api-media"),
    path("projects/<slug:slug>/crowd-results/import/", views.CrowdImport.as_view(), name="api-crowd-import"),
    path("imports/<int:pk>/", views.ImportJobDetail.as_view(), name="api-import-job"),
    path("imports/<int:pk>/cancel/", views.ImportJobCancel.as_view(), name="api-import-job-cancel"),
    path("projects/<slug:slug>/assignments/next/", views.AssignmentNext.as_view(), name="api-next"),
    path("assignments/<int:pk>/submit/", views.AssignmentSubmit.as_view(), name="api-submit"),
    path("assignments/<int:pk>/plays/", plays.AssignmentPlays.as_view(), name="api-plays"),
    path("assignments/<int:pk>/media/<str:ref>", plays.AssignmentMedia.as_view(), name="api-assignment-media"),
    path("assignments/<int:pk>/annotation/", revisions.AssignmentAnnotation.as_view(), name="api-annotation"),
    path("projects/<slug:slug>/annotations/", views.AnnotationExport.as_view(), name="api-annotations"),
    path("projects/<slug:slug>/bonuses/", views.BonusList.as_view(), name="api-bonuses"),
    path("assignments/<int:pk>/flag/", quality.AssignmentFlag.as_view(), name="api-flag"),
    path("projects/<slug:slug>/flags/", quality.FlagList.as_view(), name="api-flags"),
    path("projects/<slug:slug>/flags/<int:pk>/withdraw/", quality.FlagResolve.as_view(action="withdraw"),
         name="api-flag-withdraw"),
    path("projects/<slug:slug>/flags/<int:pk>/dismiss/", quality.FlagResolve.as_view(action="dismiss"),
         name="api-flag-dismiss"),
    path("projects/<slug:slug>/adjudication/", quality.AdjudicationQueue.as_view(), name="api-adjudication"),
    path("projects/<slug:slug>/items/<int:item_id>/adjudication/", quality.ItemAdjudication.as_view(),
         name="api-item-adjudication"),
]
