"""Quality control's pages: settings, adjudication, flags, rules and the worker page (their
addresses sit beside the project's other pages)."""

from django.urls import path

from quality.views import adjudication, annotator, flags, rules, settings, worker_page

urlpatterns = [
    path("projects/<slug:slug>/qualification/retry/", annotator.qualification_retry, name="qualification-retry"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/flag/", flags.flag, name="flag"),
    path("projects/<slug:slug>/quality/", settings.quality, name="quality"),
    path("projects/<slug:slug>/quality/training/", settings.training_for_everyone, name="quality-training"),
    path("projects/<slug:slug>/quality/adjudication/", adjudication.adjudication, name="adjudication"),
    path("projects/<slug:slug>/quality/adjudication/<int:item_id>/", adjudication.adjudication_item, name="adjudication-item"),
    path("projects/<slug:slug>/quality/flags/", adjudication.flags, name="flags"),
    path("projects/<slug:slug>/quality/flags/<int:item_id>/withdraw/", adjudication.flag_resolve, {"action": "withdraw"},
         name="flag-withdraw"),
    path("projects/<slug:slug>/quality/flags/<int:item_id>/dismiss/", adjudication.flag_resolve, {"action": "dismiss"},
         name="flag-dismiss"),
    path("projects/<slug:slug>/quality/flags/<int:item_id>/undo/", adjudication.flag_resolve, {"action": "undo"},
         name="flag-withdraw-undo"),
    path("projects/<slug:slug>/workers/<int:worker_id>/", worker_page.worker_detail, name="quality-worker"),
    path("projects/<slug:slug>/workers/<int:worker_id>/first-shown.svg", worker_page.worker_first_shown_figure,
         name="quality-worker-first-shown"),
    path("projects/<slug:slug>/workers/<int:worker_id>/<str:action>/", worker_page.worker_act,
         name="quality-worker-action"),
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
