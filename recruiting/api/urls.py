"""The recruiting API: a project's panel, pay per hour, bonus payments and the bonus ledger's
staff actions, the Prolific study link, its submissions and its webhook."""

from django.urls import path

from recruiting.api import bonus_payments, panels, staff_bonuses
from recruiting.api.prolific import views as prolific

urlpatterns = [
    path("projects/<slug:slug>/panel/", panels.ProjectPanel.as_view(), name="api-panel"),
    path("projects/<slug:slug>/bonus-payments/", bonus_payments.BonusPayments.as_view(), name="api-bonus-payments"),
    path("projects/<slug:slug>/bonus-payments/pay/", bonus_payments.BonusPay.as_view(), name="api-bonus-pay"),
    path("projects/<slug:slug>/bonus-payments/reconcile/", bonus_payments.BonusReconcile.as_view(),
         name="api-bonus-reconcile"),
    path("projects/<slug:slug>/bonus-payments/<int:pk>/confirm/",
         bonus_payments.BonusPaymentConfirm.as_view(), name="api-bonus-payment-confirm"),
    path("projects/<slug:slug>/bonus-payments/<int:pk>/release/",
         bonus_payments.BonusPaymentRelease.as_view(), name="api-bonus-payment-release"),
    path("projects/<slug:slug>/pay-rate/", bonus_payments.PayRate.as_view(), name="api-pay-rate"),
    path("projects/<slug:slug>/prolific/", prolific.StudyLink.as_view(), name="api-prolific"),
    path("projects/<slug:slug>/prolific/sync/", prolific.StudySync.as_view(), name="api-prolific-sync"),
    path("projects/<slug:slug>/prolific/submissions/", prolific.SubmissionList.as_view(),
         name="api-prolific-submissions"),
    path("projects/<slug:slug>/prolific/submissions/decide/", prolific.SubmissionDecisions.as_view(),
         name="api-prolific-decide"),
    path("projects/<slug:slug>/prolific/submissions/<str:submission_id>/approve/",
         prolific.SubmissionApprove.as_view(), name="api-prolific-approve"),
    path("projects/<slug:slug>/prolific/submissions/<str:submission_id>/reject/",
         prolific.SubmissionReject.as_view(), name="api-prolific-reject"),
    path("prolific/webhook/", prolific.Webhook.as_view(), name="api-prolific-webhook"),
    path("projects/<slug:slug>/bonuses/", staff_bonuses.BonusList.as_view(), name="api-bonuses"),
    path("projects/<slug:slug>/bonuses/<int:pk>/", staff_bonuses.BonusRemove.as_view(), name="api-bonus"),
    path("projects/<slug:slug>/bonuses/mark-paid/", staff_bonuses.BonusesMarkPaid.as_view(),
         name="api-bonuses-mark-paid"),
]
