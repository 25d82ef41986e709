"""Recruiting's pages: a panel's study link and welcome, the bonuses and pay pages, the Prolific
page (their addresses sit beside the project's other pages)."""

from django.urls import path

from recruiting.views import bonuses, marketplace, prolific

urlpatterns = [
    path("projects/<slug:slug>/welcome/", marketplace.welcome, name="welcome"),
    path("projects/<slug:slug>/bonuses/", bonuses.bonuses_page, name="bonuses"),
    path("projects/<slug:slug>/bonuses/pay/", bonuses.bonuses_pay_view, name="bonuses-pay"),
    path("projects/<slug:slug>/bonuses/reconcile/", bonuses.bonuses_reconcile_view, name="bonuses-reconcile"),
    path("projects/<slug:slug>/bonuses/payments/<int:pk>/<str:action>/", bonuses.bonus_payment_settle_view,
         name="bonus-payment-settle"),
    path("projects/<slug:slug>/export/bonuses.csv", bonuses.export_bonuses, name="export-bonuses"),
    path("projects/<slug:slug>/pay/", bonuses.project_pay_view, name="project-pay"),
    path("projects/<slug:slug>/prolific/", prolific.prolific_page, name="prolific"),
    path("projects/<slug:slug>/prolific/<str:action>/", prolific.prolific_act, name="prolific-action"),
    path("start/<slug:slug>/", marketplace.start, name="start"),
]
