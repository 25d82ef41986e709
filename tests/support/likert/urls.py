from django.urls import path

from tests.support.likert import views

urlpatterns = [path("projects/<slug:slug>/likert/", views.counts, name="likert-counts")]
