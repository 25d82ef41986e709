from django.urls import path

from analysis.views import dashboard as views
from analysis.views import reports as views_reports

urlpatterns = [
    path("projects/<slug:slug>/analysis/", views.dashboard, name="analysis-dashboard"),
    path("projects/<slug:slug>/analysis/run/", views.start, name="analysis-start"),
    path("projects/<slug:slug>/analysis/recompute/", views.recompute_all, name="analysis-recompute-all"),
    path("projects/<slug:slug>/analysis/runs/<int:run_id>/restart/", views.restart, name="analysis-restart"),
    path("projects/<slug:slug>/analysis/runs/<int:run_id>/cancel/", views.cancel, name="analysis-cancel"),
    path("projects/<slug:slug>/analysis/runs/<int:run_id>/<str:name>.svg", views.figure, name="analysis-figure"),
    path("projects/<slug:slug>/analysis/runs/<int:run_id>/workers.csv", views.workers_csv, name="analysis-workers-csv"),
    path("projects/<slug:slug>/analysis/hourly.svg", views.hourly, name="analysis-hourly"),
    path("projects/<slug:slug>/analysis/runs/<int:run_id>/status/", views.run_status, name="analysis-poll"),
    path("projects/<slug:slug>/reports/<slug:kind>/", views_reports.report_page, name="report-page"),
    path("projects/<slug:slug>/reports/<slug:kind>/runs/<int:run_id>/<str:name>.svg", views_reports.report_figure,
         name="report-figure"),
    path("projects/<slug:slug>/reports/<slug:kind>/runs/<int:run_id>/files/<str:name>", views_reports.report_file,
         name="report-file"),
]
