"""The API's authentication: session and token as DRF does them, except that an account still
holding a one-time password (``WorkerProfile.must_change_password``) is refused with a 403 until
it is changed. The web pages send such an account to the password form
(``annotation.middleware``); the API has no form to send a client to, so it says what to do."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.utils.translation import gettext_lazy as _
from drf_spectacular import authentication as spectacular_auth
from rest_framework import authentication, exceptions
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request

ONE_TIME_PASSWORD = ("This account still has its one-time password: log in on the site and change it "
                     "(/accounts/password_change/) before using the API.")


class PasswordChangeRequired(PermissionDenied):
    default_detail = ONE_TIME_PASSWORD
    default_code = "password_change_required"


def must_change_password(user: User | AnonymousUser | None) -> bool:
    profile = getattr(user, "profile", None)
    return bool(profile is not None and profile.must_change_password)


def refuse_one_time_password(user: User | AnonymousUser | None) -> None:
    if must_change_password(user):
        raise PasswordChangeRequired()


class SessionAuthentication(authentication.SessionAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        found = super().authenticate(request)
        if found is not None:
            refuse_one_time_password(found[0])
        return found


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        # DRF's own lookup, with the profile read in the same query: no query more per request.
        # Imported here, as DRF does: the settings name this class before the apps are loaded.
        from rest_framework.authtoken.models import Token

        try:
            token = Token.objects.select_related("user", "user__profile").get(key=key)
        except Token.DoesNotExist:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        refuse_one_time_password(token.user)
        return token.user, token


class SessionScheme(spectacular_auth.SessionScheme):
    """The schema describes these classes as DRF's own."""

    target_class = "annotation.api.authentication.SessionAuthentication"


class TokenScheme(spectacular_auth.TokenScheme):
    target_class = "annotation.api.authentication.TokenAuthentication"
