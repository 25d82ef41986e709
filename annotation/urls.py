from django.urls import path

from annotation.views import annotator, marketplace, quality, staff

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
    path("projects/<slug:slug>/annotate/<int:assignment_id>/media/<str:ref>", annotator.assignment_media,
         name="assignment-media"),
    path("projects/<slug:slug>/media/<path:key>", annotator.media, name="media"),
    path("projects/<slug:slug>/qualification/retry/", quality.qualification_retry, name="qualification-retry"),
    path("projects/<slug:slug>/welcome/", marketplace.welcome, name="welcome"),
    path("projects/<slug:slug>/overview/", staff.overview, name="overview"),
    path("projects/<slug:slug>/export/annotations.<str:fmt>", staff.export, name="export"),
    path("projects/<slug:slug>/export/bonuses.csv", staff.export_bonuses, name="export-bonuses"),
    path("start/<slug:slug>/", marketplace.start, name="start"),
    path("invite/<str:token>/", annotator.invite, name="invite"),
    path("accounts/password_change/", annotator.PasswordChange.as_view(), name="password_change"),
]
