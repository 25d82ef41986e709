"""Quality control's API: settings, training, gold promotion, the worker page and its actions,
flags, adjudication and rules (mounted under /api/ beside the engine's)."""

from django.urls import path

from quality.api import adjudication, annotator, policy, workers
from quality.api.rules import urlpatterns as rules_urlpatterns

urlpatterns = [
    path("projects/<slug:slug>/qualification/retry/", annotator.QualificationRetry.as_view(),
         name="api-qualification-retry"),
    path("projects/<slug:slug>/quality/", policy.QualitySettings.as_view(), name="api-quality"),
    path("projects/<slug:slug>/training/", policy.TrainingForEveryone.as_view(), name="api-training"),
    path("projects/<slug:slug>/gold/promote/", policy.GoldPromotion.as_view(), name="api-gold-promote"),
    path("projects/<slug:slug>/workers/<int:worker_id>/", workers.WorkerDetail.as_view(), name="api-worker"),
    path("projects/<slug:slug>/workers/<int:worker_id>/<str:action>/", workers.WorkerAction.as_view(),
         name="api-worker-action"),
    path("assignments/<int:pk>/flag/", adjudication.AssignmentFlag.as_view(), name="api-flag"),
    path("projects/<slug:slug>/flags/", adjudication.FlagList.as_view(), name="api-flags"),
    path("projects/<slug:slug>/flags/<int:pk>/withdraw/", adjudication.FlagWithdraw.as_view(),
         name="api-flag-withdraw"),
    path("projects/<slug:slug>/flags/<int:pk>/dismiss/", adjudication.FlagDismiss.as_view(),
         name="api-flag-dismiss"),
    path("projects/<slug:slug>/flags/<int:pk>/undo-withdrawal/", adjudication.FlagWithdrawUndo.as_view(),
         name="api-flag-withdraw-undo"),
    path("projects/<slug:slug>/adjudication/", adjudication.AdjudicationQueue.as_view(), name="api-adjudication"),
    path("projects/<slug:slug>/items/<int:item_id>/adjudication/", adjudication.ItemAdjudication.as_view(),
         name="api-item-adjudication"),
    *rules_urlpatterns,
]
