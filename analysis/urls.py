from django.urls import path

from analysis.views import dashboard, reports

urlpatterns = [
    path("projects/<slug:slug>/analysis/", dashboard.dashboard, name="analysis-dashboard"),
    path("projects/<slug:slug>/analysis/recompute/", dashboard.recompute_all, name="analysis-recompute-all"),
    path("projects/<slug:slug>/analysis/runs/<int:run_id>/<str:name>.svg", dashboard.figure, name="analysis-figure"),
    path("projects/<slug:slug>/analysis/runs/<int:run_id>/workers.csv", dashboard.workers_csv, name="analysis-workers-csv"),
    path("projects/<slug:slug>/analysis/hourly.svg", dashboard.hourly, name="analysis-hourly"),
    path("projects/<slug:slug>/reports/<slug:kind>/", reports.report_page, name="report-page"),
    path("projects/<slug:slug>/reports/<slug:kind>/runs/<int:run_id>/<str:name>.svg", reports.report_figure,
         name="report-figure"),
    path("projects/<slug:slug>/reports/<slug:kind>/runs/<int:run_id>/files/<str:name>", reports.report_file,
         name="report-file"),
]
