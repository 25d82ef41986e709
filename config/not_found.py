"""handler404: an address under /api/ that no route matches (an id that is not a whole number, a
path the API does not have) answers as the API does for anything it cannot find, JSON
``404 {"detail": "Not found."}`` (``annotation.api.unseen``), not the site's HTML page: an API
client, and the OpenAPI schema, meet one shape of 404. Other addresses get the site's page.

Django uses it when DEBUG is off; with DEBUG on it shows its own technical page instead."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found

from annotation.api.unseen import NOT_FOUND


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        return JsonResponse({"detail": NOT_FOUND}, status=404)
    return page_not_found(request, exception)
