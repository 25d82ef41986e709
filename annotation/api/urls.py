from django.urls import path

from annotation.api import (
    annotator_actions,
    audit,
    media,
    plays,
    revisions,
    tokens,
    views,
)
from annotation.api.staff import accounts as staff_accounts
from annotation.api.staff import imports as staff_imports
from annotation.api.staff import projects as staff_projects
from annotation.api.staff import reviews as staff_reviews
from annotation.api.staff import site as staff_site

urlpatterns = [
    path("token/", tokens.TokenObtain.as_view(), name="api-token"),
    path("task-types/", views.TaskTypeList.as_view(), name="api-task-types"),
    path("projects/", views.ProjectList.as_view(), name="api-projects"),
    path("projects/<slug:slug>/", views.ProjectDetail.as_view(), name="api-project"),
    path("projects/<slug:slug>/progress/", views.ProjectProgressView.as_view(), name="api-progress"),
    path("projects/<slug:slug>/items/", views.ItemList.as_view(), name="api-items"),
    path("projects/<slug:slug>/items/import/", views.ItemImport.as_view(), name="api-items-import"),
    path("projects/<slug:slug>/media/", media.MediaFiles.as_view(), name="api-media"),
    path("projects/<slug:slug>/media/<path:key>", media.MediaFileDetail.as_view(), name="api-media-file"),
    path("projects/<slug:slug>/crowd-results/import/", views.CrowdImport.as_view(), name="api-crowd-import"),
    path("imports/<int:pk>/", views.ImportJobDetail.as_view(), name="api-import-job"),
    path("imports/<int:pk>/cancel/", views.ImportJobCancel.as_view(), name="api-import-job-cancel"),
    path("projects/<slug:slug>/assignments/next/", views.AssignmentNext.as_view(), name="api-next"),
    path("assignments/<int:pk>/submit/", views.AssignmentSubmit.as_view(), name="api-submit"),
    path("assignments/<int:pk>/plays/", plays.AssignmentPlays.as_view(), name="api-plays"),
    path("assignments/<int:pk>/media/<str:ref>", plays.AssignmentMedia.as_view(), name="api-assignment-media"),
    path("assignments/<int:pk>/annotation/", revisions.AssignmentAnnotation.as_view(), name="api-annotation"),
    path("projects/<slug:slug>/annotations/", views.AnnotationExport.as_view(), name="api-annotations"),
    path("projects/<slug:slug>/audit/", audit.AuditList.as_view(), name="api-audit"),
    # The page actions' twins (docs/api.md, "Page actions in the API").
    path("join/", annotator_actions.ProjectJoin.as_view(), name="api-join"),
    path("projects/<slug:slug>/consent/", annotator_actions.ConsentAccept.as_view(), name="api-consent"),
    path("assignments/<int:pk>/skip/", annotator_actions.AssignmentSkip.as_view(), name="api-skip"),
    path("projects/<slug:slug>/assignments/review/", staff_reviews.AssignmentsReview.as_view(),
         name="api-assignments-review"),
    path("projects/<slug:slug>/imports/<int:pk>/restart/", staff_imports.ImportJobRestart.as_view(),
         name="api-import-job-restart"),
    path("projects/<slug:slug>/annotators/", staff_accounts.AnnotatorsCreate.as_view(), name="api-annotators"),
    path("workers/<int:worker_id>/", staff_site.AccountDelete.as_view(), name="api-account"),
    path("workers/<int:worker_id>/<str:action>/", staff_site.WorkerSiteAction.as_view(), name="api-worker-site-action"),
    path("audit/", staff_site.SiteAuditList.as_view(), name="api-audit-site"),
    path("task-types/<slug:task_type>/projects/", staff_projects.ProjectCreate.as_view(), name="api-project-create"),
    path("projects/<slug:slug>/settings/", staff_projects.ProjectSettingsView.as_view(), name="api-project-settings"),
]
