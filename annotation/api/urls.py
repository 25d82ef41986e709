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
    path("projects/<slug:slug>/qualification/retry/", quality.QualificationRetry.as_view(),
         name="api-qualification-retry"),
    path("assignments/<int:pk>/submit/", views.AssignmentSubmit.as_view(), name="api-submit"),
    path("assignments/<int:pk>/plays/", plays.AssignmentPlays.as_view(), name="api-plays"),
    path("assignments/<int:pk>/media/<str:ref>", plays.AssignmentMedia.as_view(), name="api-assignment-media"),
    path("assignments/<int:pk>/annotation/", revisions.AssignmentAnnotation.as_view(), name="api-annotation"),
    path("projects/<slug:slug>/annotations/", views.AnnotationExport.as_view(), name="api-annotations"),
    path("projects/<slug:slug>/bonuses/", views.BonusList.as_view(), name="api-bonuses"),
]
