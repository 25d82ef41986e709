"""Who may open a page: anonymous visitors go to the login form, logged-in users without the
permission get the "no access" page (403) instead of a login form they cannot get past."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.http.response import HttpResponseBase


def permission_required(perm: str | tuple[str, ...]) -> Callable:
    """Like Django's ``permission_required``, except that a logged-in user who lacks ``perm``
    (one permission or several, all needed) is told so with a 403 page (``templates/403.html``,
    rendered by Django's ``permission_denied`` handler) rather than sent to log in again."""
    perms = (perm,) if isinstance(perm, str) else tuple(perm)

    def decorator(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not request.user.has_perms(perms):
                raise PermissionDenied("You do not have access to this page.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
