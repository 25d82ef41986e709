"""The requests the pages receive, as the type checker should see them: Django's ``HttpRequest``
plus what the middleware sets on it and what a view's login check guarantees."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxRequest(HttpRequest):
    """Any request: django-htmx's middleware (in every configuration) sets ``htmx``."""

    htmx: HtmxDetails


class AuthenticatedRequest(HtmxRequest):
    """A request of a logged-in user: the type of a view behind ``login_required``, where
    ``request.user`` is never the anonymous user."""

    user: User
