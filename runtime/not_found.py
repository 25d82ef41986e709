"""handler404: an address that matches no route answers the API's own 404 under /api/.

Inside an API view, DRF turns a 404 into ``{"detail": "Not found."}``; an address that no route
matches (``/api/assignments/abc/submit/``, a slug with characters a slug cannot hold) never
reaches a view, and Django's handler would answer the HTML page. Programs get the same JSON
answer as for anything they may not see (``annotation.api.unseen`` uses ``NOT_FOUND``), pages keep the page.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found as django_page_not_found

from runtime.unavailable_responses import wants_json

# DRF's words for a 404, which every API answer about something a caller may not see uses too.
NOT_FOUND = "Not found."


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if wants_json(request):
        return JsonResponse({"detail": NOT_FOUND}, status=404)
    return django_page_not_found(request, exception)
