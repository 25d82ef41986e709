from django.urls import path

from analysis.views import dashboard, reports, rules

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
    path("projects/<slug:slug>/quality/rules/", rules.rules_page, name="quality-rules"),
    path("projects/<slug:slug>/quality/rules/add/", rules.rule_add_view, name="quality-rule-add"),
    path("projects/<slug:slug>/quality/rules/check/", rules.rules_check_view, name="quality-rules-check"),
    path("projects/<slug:slug>/quality/rules/<int:rule_id>/", rules.rule_edit_view, name="quality-rule-edit"),
    path("projects/<slug:slug>/quality/rules/<int:rule_id>/enable/", rules.rule_switch_view, {"state": "enable"},
         name="quality-rule-enable"),
    path("projects/<slug:slug>/quality/rules/<int:rule_id>/disable/", rules.rule_switch_view, {"state": "disable"},
         name="quality-rule-disable"),
    path("projects/<slug:slug>/quality/rules/<int:rule_id>/delete/", rules.rule_delete_view, name="quality-rule-delete"),
]
