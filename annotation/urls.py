from django.urls import path

from annotation.views import annotator, audit, marketplace, quality, staff, worker_page

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
    path("projects/<slug:slug>/welcome/", marketplace.welcome, name="welcome"),
    path("projects/<slug:slug>/overview/", staff.overview, name="overview"),
    path("projects/<slug:slug>/quality/", quality.quality, name="quality"),
    path("projects/<slug:slug>/export/annotations.<str:fmt>", staff.export, name="export"),
    path("projects/<slug:slug>/export/bonuses.csv", staff.export_bonuses, name="export-bonuses"),
    path("projects/<slug:slug>/workers/<int:worker_id>/", worker_page.worker_detail, name="quality-worker"),
    path("projects/<slug:slug>/workers/<int:worker_id>/<str:action>/", worker_page.worker_act,
         name="quality-worker-action"),
    path("projects/<slug:slug>/audit.csv", audit.project_audit_csv, name="audit-csv"),
    path("audit.csv", audit.site_audit_csv, name="audit-csv-site"),
    path("start/<slug:slug>/", marketplace.start, name="start"),
    path("invite/<str:token>/", annotator.invite, name="invite"),
    path("accounts/password_change/", annotator.PasswordChange.as_view(), name="password_change"),
]
