"""Request bodies that no login stands behind are capped before anything reads them.

Django reads and parses a body up to ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (50 MB, for staff imports),
and its CSRF check parses a form body before a view can refuse the caller. So a body over
``ANONYMOUS_BODY_MAX_BYTES`` is answered 413 at once, unread, when

- the caller is not logged in (no session user, no valid API token), wherever it is sent; or
- the route takes no login at all (the API token, a signed webhook: DRF views without
  authentication classes) or is one of the account pages anyone may post to (login, password
  reset, invite), whoever sends it: a login cannot lift the cap of an endpoint that ignores it.

The size is read from ``Content-Length``. A body sent without one (chunked) is let through as
empty: under WSGI Django reads no byte of a body whose length is not declared, so nothing of it
is parsed, and the request gets the answer an empty body gets (the API schema documents no 411).
Requests whose declared body is within the cap pay nothing for the check.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from rest_framework.authentication import get_authorization_header
from rest_framework.authtoken.models import Token

ANONYMOUS_BODY_MAX_BYTES = 64 * 1024
# The account pages anyone may post to, by URL name: capped for every caller.
OPEN_ROUTES = frozenset({"login", "admin:login", "password_reset", "password_reset_confirm", "invite"})
_TOO_LARGE = (f"The request's body is larger than {ANONYMOUS_BODY_MAX_BYTES // 1024} KB, more than this "
              "address takes without a login.")


def declared_length(request: HttpRequest) -> int:
    """The body's declared size: 0 when none is declared (chunked), as Django then reads none."""
    raw = request.META.get("CONTENT_LENGTH") or ""
    try:
        return max(int(raw), 0) if raw.strip() else 0
    except ValueError:
        return 0  # Django reads such a body as empty


def route_is_open(request: HttpRequest) -> bool:
    """True for routes that take no login: a body there is capped whoever sends it."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return False
    if match.view_name in OPEN_ROUTES:
        return True
    view_class = getattr(match.func, "cls", None)  # DRF's as_view() keeps the class here
    return view_class is not None and getattr(view_class, "authentication_classes", None) == []


def logged_in(request: HttpRequest) -> bool:
    """A session user, or a valid API token (checked as DRF's TokenAuthentication reads it)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return True
    # DRF's Request takes a user forced on the request (its test client's force_authenticate)
    # before any authentication class; so does this check.
    forced = getattr(request, "_force_auth_user", None)
    if forced is not None and forced.is_authenticated:
        return True
    words = get_authorization_header(request).split()  # type: ignore[arg-type]  # reads META only
    if len(words) != 2 or words[0].lower() != b"token":
        return False
    try:
        key = words[1].decode()
    except UnicodeError:
        return False
    return Token.objects.filter(key=key, user__is_active=True).exists()


def body_refusal(request: HttpRequest) -> HttpResponse | None:
    """The 413 for a body this request may not send, or None to let it through."""
    if declared_length(request) <= ANONYMOUS_BODY_MAX_BYTES:
        return None
    if not route_is_open(request) and logged_in(request):
        return None
    response: HttpResponse
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": _TOO_LARGE}, status=413)
    else:
        response = render(request, "annotation/message.html",
                          {"title": "Request too large", "text": _TOO_LARGE}, status=413)
    return response


class AnonymousBodyLimitMiddleware:
    """Refuses an oversized body (see the module) before any middleware or view reads it. Placed
    after the authentication middleware, so that it knows the session's user; the CSRF check
    (which parses form bodies) runs later, in the view phase."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return body_refusal(request) or self.get_response(request)
