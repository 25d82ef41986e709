from django.urls import path

from annotation import views, views_marketplace, views_staff

urlpatterns = [
    path("", views.home, name="home"),
    path("projects/", views.projects, name="projects"),
    path("projects/join/", views.join, name="join"),
    path("projects/<slug:slug>/guidelines/", views.guidelines, name="guidelines"),
    path("projects/<slug:slug>/annotate/", views.annotate, name="annotate"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/submit/", views.submit, name="submit"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/skip/", views.skip, name="skip"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/edit/", views.edit, name="edit"),
    path("projects/<slug:slug>/annotate/<int:assignment_id>/revise/", views.revise, name="revise"),
    path("projects/<slug:slug>/media/<path:key>", views.media, name="media"),
    path("projects/<slug:slug>/welcome/", views_marketplace.welcome, name="welcome"),
    path("projects/<slug:slug>/overview/", views_staff.overview, name="overview"),
    path("projects/<slug:slug>/export/annotations.<str:fmt>", views_staff.export, name="export"),
    path("projects/<slug:slug>/export/bonuses.csv", views_staff.export_bonuses, name="export-bonuses"),
    path("start/<slug:slug>/", views_marketplace.start, name="start"),
    path("invite/<str:token>/", views.invite, name="invite"),
    path("accounts/password_change/", views.PasswordChange.as_view(), name="password_change"),
]
