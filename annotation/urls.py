from django.urls import path

from annotation.views import annotator, item_flags, marketplace, quality, staff

urlpatterns = [
    path("", annotator.home, name="home"),
    path("projects/", annotator.projects, name="projects"),
    path("projects/join/", annotator.join, name="join"),
    path("projects/<slug:slug>/guidelines/", annotator.guidelines, name="guidelines"),
    path("projects/<slug:slug>/annotate/", annotator.annotate, name="annotate"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/submit/", annotator.submit, name="submit"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/skip/", annotator.skip, name="skip"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/edit/", annotator.edit, name="edit"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/revise/", annotator.revise, name="revise"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/flag/", item_flags.flag, name="flag"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/media/<str:ref>", annotator.assignment_media,
         name="assignment-media"),
    path("projects/<slug:slug>/media/<path:key>", annotator.media, name="media"),
    path("projects/<slug:slug>/welcome/", marketplace.welcome, name="welcome"),
    path("projects/<slug:slug>/overview/", staff.overview, name="overview"),
    path("projects/<slug:slug>/quality/adjudication/", quality.adjudication, name="adjudication"),
    path("projects/<slug:slug>/quality/adjudication/<int:item_id>/", quality.adjudication_item, name="adjudication-item"),
    path("projects/<slug:slug>/quality/flags/", quality.flags, name="flags"),
    path("projects/<slug:slug>/quality/flags/<int:item_id>/withdraw/", quality.flag_resolve, {"action": "withdraw"},
         name="flag-withdraw"),
    path("projects/<slug:slug>/quality/flags/<int:item_id>/dismiss/", quality.flag_resolve, {"action": "dismiss"},
         name="flag-dismiss"),
    path("projects/<slug:slug>/export/annotations.<str:fmt>", staff.export, name="export"),
    path("projects/<slug:slug>/export/bonuses.csv", staff.export_bonuses, name="export-bonuses"),
    path("start/<slug:slug>/", marketplace.start, name="start"),
    path("invite/<str:token>/", annotator.invite, name="invite"),
    path("accounts/password_change/", annotator.PasswordChange.as_view(), name="password_change"),
]
