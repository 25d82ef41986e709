"""Template context every page gets."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def password_reset(request: HttpRequest) -> dict[str, bool]:
    """Whether the login page offers a password reset (only when mail can be sent)."""
    return {"password_reset_enabled": settings.PASSWORD_RESET_ENABLED}
