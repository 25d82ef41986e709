"""503 with Retry-After, not 500, when a service a request needs is away.

Two kinds of error mean "away for now": ``ServiceUnavailable`` (raised by code that cannot reach
the job queue, for instance) and the database driver's connection errors. Pages get a page that
says to retry, the API gets JSON in DRF's shape (``{"detail": ...}``). Nothing here reads the
session, the user or the database: they may be what is away.

Errors raised in a view reach ``ServiceUnavailableMiddleware.process_exception`` (or, in DRF
views, ``api_exception_handler``); errors raised in a middleware (the session or the user looked
up on the way in) reach ``server_error``, the project's handler500.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views.defaults import server_error as django_server_error
from rest_framework.views import exception_handler as drf_exception_handler

from runtime.unavailable import ServiceUnavailable

logger = logging.getLogger(__name__)
TEMPLATE = "503.html"


def database_away(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached now (refused, closed, restarting,
    locked), as opposed to a mistake that retrying cannot mend (a missing table)."""
    if isinstance(exc, InterfaceError):
        return True
    if isinstance(exc, OperationalError):
        return not str(exc).startswith("no such ")  # SQLite's "no such table/column"
    return False


def as_unavailable(exc: BaseException) -> ServiceUnavailable | None:
    """The ``ServiceUnavailable`` that ``exc`` amounts to, or None when it is another error."""
    if isinstance(exc, ServiceUnavailable):
        return exc
    if database_away(exc):
        return ServiceUnavailable("The database", retry_after=settings.UNAVAILABLE_RETRY_AFTER,
                                  detail="The service is briefly unavailable (its database cannot be reached). "
                                         "Nothing you sent before this was lost; please retry in a few seconds.")
    return None


# Paths whose clients are programs: they get JSON.
JSON_PATHS = ("/api/", "/health/")


def wants_json(request: HttpRequest) -> bool:
    return request.path_info.startswith(JSON_PATHS) or "application/json" in request.headers.get("Accept", "")


def unavailable_response(request: HttpRequest, unavailable: ServiceUnavailable) -> HttpResponse:
    """503 with Retry-After: JSON in DRF's error shape for the API, a page elsewhere."""
    seconds = max(1, int(unavailable.retry_after))
    response: HttpResponse
    if wants_json(request):
        response = JsonResponse({"detail": unavailable.detail, "retry_after": seconds}, status=503)
    else:
        # Rendered without the request, so no context processor looks up the user or session.
        html = loader.render_to_string(TEMPLATE, {"detail": unavailable.detail, "retry_after": seconds,
                                                  "what": unavailable.what})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(seconds)
    # A proxy or browser must not keep the outage's answer.
    response["Cache-Control"] = "no-store"
    return response


def _log(request: HttpRequest, unavailable: ServiceUnavailable, exc: BaseException) -> None:
    logger.warning("503 on %s %s: %s (%s: %s)", request.method, request.path_info, unavailable.what,
                   type(exc).__name__, exc)


class ServiceUnavailableMiddleware:
    """Turns a service that is away, met in a view, into 503 with Retry-After."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        unavailable = as_unavailable(exception)
        if unavailable is None:
            return None
        _log(request, unavailable, exception)
        return unavailable_response(request, unavailable)


# Django's refusals of an oversized request: without this, an API client would get Django's
# HTML 400 page instead of JSON.
TOO_BIG = (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent)


def api_exception_handler(exc: Exception, context: dict) -> HttpResponse | None:
    """DRF's handler, plus 503 with Retry-After for a service that is away, and a JSON 400 for
    a request body over Django's limits."""
    if isinstance(exc, TOO_BIG):
        return JsonResponse({"detail": f"The request is too large: {exc}"}, status=400)
    unavailable = as_unavailable(exc)
    if unavailable is not None:
        request = context.get("request")
        if request is not None:
            _log(request, unavailable, exc)
        seconds = max(1, int(unavailable.retry_after))
        # A plain JSON response, not DRF's Response: no content negotiation or renderer runs, so
        # nothing on the way out can touch the database that may be away.
        response = JsonResponse({"detail": unavailable.detail, "retry_after": seconds}, status=503)
        response["Retry-After"] = str(seconds)
        response["Cache-Control"] = "no-store"
        return response
    return drf_exception_handler(exc, context)


def server_error(request: HttpRequest, template_name: str = "500.html") -> HttpResponse:
    """handler500: the error being handled is in ``sys.exc_info()``; a service that is away (met
    in a middleware, before any view) answers 503, anything else Django's 500."""
    exc = sys.exc_info()[1]
    unavailable = as_unavailable(exc) if exc is not None else None
    if unavailable is not None and exc is not None:
        _log(request, unavailable, exc)
        return unavailable_response(request, unavailable)
    return django_server_error(request, template_name)
