"""POST /api/token/: trade a user name and password for the account's API token.

The password is checked through ``authenticate`` with the Django request, so a failure counts
toward the login lockout like a failed login on the web pages, and a locked-out account gets the
lockout answer (429) even with the right password. The endpoint is throttled per address.
"""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.authentication import refuse_one_time_password
from annotation.api.parsers import body_fields
from annotation.api.schema.errors import WaitAndRetry, field_errors
from annotation.throttles import AnonThrottle, TokenThrottle, lockout_response
from annotation.value_checks import text_problem


def api_token_get_or_create(*, user: User) -> Token:
    token, _ = Token.objects.get_or_create(user=user)
    return token


class TokenObtain(APIView):
    """``username`` and ``password`` (JSON or form fields) → ``{"token": "..."}``; send it as
    ``Authorization: Token ...``. Wrong credentials give 400, a lockout 429."""

    # Credentials travel in the body; a session cookie must neither be needed nor be enough.
    authentication_classes = []
    permission_classes = [AllowAny]
    # The one endpoint anonymous clients get past the permission check on (DRF checks
    # permissions before throttles), so the anonymous rate applies here besides its own.
    throttle_classes = [AnonThrottle, TokenThrottle]

    @extend_schema(
        tags=["auth"], operation_id="token_obtain", summary="Trade a user name and password for an API token",
        request=inline_serializer("TokenObtainRequest", fields={
            "username": serializers.CharField(), "password": serializers.CharField()}),
        responses={
            200: inline_serializer("Token", fields={"token": serializers.CharField(
                help_text="Send it as `Authorization: Token <token>`.")}),
            400: field_errors("A field missing or unusable, or (`detail`) wrong credentials."),
            429: OpenApiResponse(WaitAndRetry, "Throttled, or the account is locked out after failed logins "
                                               "(`retry_after`)."),
        })
    def post(self, request: Request) -> Response | HttpResponse:
        body = body_fields(request, "the user name and password")
        values = {name: body.get(name) for name in ("username", "password")}
        fields = {name: value for name, value in values.items() if isinstance(value, str) and value}
        missing = {name: "This field is required." for name in values if name not in fields}
        if missing:
            return Response(missing, status=status.HTTP_400_BAD_REQUEST)
        # A NUL would reach the user lookup and the failure log: PostgreSQL refuses it with a 500.
        unusable = {name: problem for name, value in fields.items() if (problem := text_problem(value))}
        if unusable:
            return Response(unusable, status=status.HTTP_400_BAD_REQUEST)
        django_request = request._request
        user = authenticate(request=django_request, **fields)
        if getattr(django_request, "axes_locked_out", False):
            return lockout_response(django_request)
        if user is None:
            return Response({"detail": "Unable to log in with the user name and password given."},
                            status=status.HTTP_400_BAD_REQUEST)
        # A one-time password opens the password form on the site, nothing else.
        refuse_one_time_password(user)
        return Response({"token": api_token_get_or_create(user=user).key})
