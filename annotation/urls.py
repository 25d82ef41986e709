from django.urls import path

from annotation.views import (
    annotator,
    audit,
    password_reset,
    staff,
)
from annotation.views.media import files as media_files

urlpatterns = [
    path("", annotator.home, name="home"),
    # Ahead of django.contrib.auth.urls (config/urls.py), whose views these wrap.
    path("accounts/password_reset/", password_reset.password_reset, name="password_reset"),
    path("accounts/password_reset/done/", password_reset.password_reset_done, name="password_reset_done"),
    path("accounts/reset/<uidb64>/<token>/", password_reset.password_reset_confirm, name="password_reset_confirm"),
    path("accounts/reset/done/", password_reset.password_reset_complete, name="password_reset_complete"),
    path("projects/", annotator.projects, name="projects"),
    path("projects/join/", annotator.join, name="join"),
    path("projects/<slug:slug>/guidelines/", annotator.guidelines, name="guidelines"),
    path("projects/<slug:slug>/annotate/", annotator.annotate, name="annotate"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/submit/", annotator.submit, name="submit"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/skip/", annotator.skip, name="skip"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/edit/", annotator.edit, name="edit"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/revise/", annotator.revise, name="revise"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/media/<str:ref>", media_files.assignment_media,
         name="assignment-media"),
    path("projects/<slug:slug>/media/<path:key>", media_files.media, name="media"),
    path("projects/<slug:slug>/overview/", staff.overview, name="overview"),
    path("projects/<slug:slug>/export/annotations.<str:fmt>", staff.export, name="export"),
    path("projects/<slug:slug>/audit.csv", audit.project_audit_csv, name="audit-csv"),
    path("audit.csv", audit.site_audit_csv, name="audit-csv-site"),
    path("invite/<str:token>/", annotator.invite, name="invite"),
    path("accounts/password_change/", annotator.PasswordChange.as_view(), name="password_change"),
]
