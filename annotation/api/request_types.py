"""The requests the API views receive, as the type checker should see them."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.request import Request


class AuthenticatedApiRequest(Request):
    """A request of an authenticated user: the type of a view whose permission classes refuse
    anonymous clients (IsAuthenticated), where ``request.user`` is never the anonymous user."""

    user: User
