"""The project's URLs plus views that meet an unavailable service, for the outage tests."""

from django.db import OperationalError
from django.http import HttpResponse
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from config.urls import handler500
from config.urls import urlpatterns as project_patterns
from runtime.unavailable import ServiceUnavailable

__all__ = ["handler500", "urlpatterns"]


def queue_away(request):
    raise ServiceUnavailable("The job queue", retry_after=12)


def database_away(request):
    raise OperationalError("connection refused")


def missing_table(request):
    raise OperationalError("no such table: annotation_nothing")


def fine(request):
    return HttpResponse("fine")


class ApiQueueAway(APIView):
    permission_classes = [AllowAny]

    def post(self, request):
        raise ServiceUnavailable("The job queue", retry_after=12, detail="The job queue cannot be reached.")


class ApiDatabaseAway(APIView):
    permission_classes = [AllowAny]

    def get(self, request):
        raise OperationalError("server closed the connection unexpectedly")


urlpatterns = [
    path("outage/queue/", queue_away),
    path("outage/database/", database_away),
    path("outage/missing-table/", missing_table),
    path("outage/fine/", fine),
    path("api/outage/queue/", ApiQueueAway.as_view()),
    path("api/outage/database/", ApiDatabaseAway.as_view()),
    *project_patterns,
]
